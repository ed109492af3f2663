#!/usr/bin/env bash
# Mounted-volume throughput, as root: for each chain, a 1.5 GiB container with ext4
# (`warpvol create --filesystem ext4`, fully filled like a real container: a --quick one is a sparse file, whose
# first writes also allocate and zero pages), mounted; 1 GiB written sequentially with direct I/O (fio, 1 MiB
# blocks, fsync at the end), the caches dropped, read back the same way; then random 4 KiB direct reads (IOPS). Next to
# it, in the same run, the engine's own figures for that chain (`warpvol benchmark --engine cpu`, all cores).
# Goals: >= 70% of the engine figure for AES, >= 85% for Serpent and Twofish.
#
# Two rows come first, the floors: the same fio jobs, on ext4 over a loop device (direct I/O, 512-byte sectors, as
# the mount attaches it) over
# - "loop": a plain file in FOLDER, the kernel's part of the mount without FUSE and without any cipher;
# - "fuse": the file that bench/fuse_floor.cpp serves from memory with warpvol-mountd's FUSE settings, which does no
#   more per request than any FUSE server must. Its copies of written data into its memory are left out of its
#   cpu/GB (it reports their thread CPU time), since an encrypting server can have its cipher write the ciphertext
#   where it belongs instead.
# No mount of this design can cost less CPU per GB than the "fuse" floor, nor run faster than the faster floor. The
# floors are taken in their cheapest state, so that the caps below are generous: their 1 GiB file is written once
# first, and then 4 s of the same 1 MiB writes and reads run over it (no block allocation, no start-up of fio).
# cpu/GB is the busy CPU time of the whole machine (/proc/stat: user, nice, system, irq, softirq; not steal) per GB
# moved, during the write and the read job. For a chain, the cipher costs cores / engine-rate CPU-s per GB, so on
# these cores no mount can reach more than cipher / (cipher + the "fuse" floor's cpu/GB) of the engine figure, nor
# more than the faster floor's rate: the columns cap-w% and cap-r% give the lower of the two.
# Usage: bench/mount_throughput.sh [BUILD_DIR] [FOLDER] [CHAINS]   (defaults: build/, /var/tmp, "aes serpent twofish")
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE, loop devices, mount)" >&2; exit 1; }
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
dir=$(mktemp -d "${2:-/var/tmp}/warpvol-mbench.XXXXXX")
chains=${3:-aes serpent twofish}
cores=$(nproc)
export WARPVOL_RUNTIME_DIR=$dir/run WARPVOL_MEDIA_DIR=$dir/media
cleanup() {
  "$bin" dismount --all --force >/dev/null 2>&1 || true
  for m in "$dir/mnt-floor" "$dir/fuse-floor"; do if mountpoint -q "$m" 2>/dev/null; then umount -l "$m"; fi; done
  rm -rf "$dir"
}
trap cleanup EXIT
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }  # calc EXPR [DECIMALS]
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
fio_rate() {  # fio_rate JOB-ARGS... -> MB/s (1e6), IOPS, busy CPU-s per GB moved
  local b0 b1
  b0=$(busy_ticks)
  fio --output-format=json "$@" > "$dir/fio.json"
  b1=$(busy_ticks)
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
rw = "write" if j["write"]["io_bytes"] else "read"
cpu_s = int(sys.argv[2]) / int(sys.argv[3])
print(j[rw]["bw_bytes"] / 1e6, j[rw]["iops"], cpu_s / (j[rw]["io_bytes"] / 1e9))' \
    "$dir/fio.json" "$((b1 - b0))" "$(getconf CLK_TCK)"
}
fs_rates() {  # fs_rates MOUNTPOINT [FIO-ARGS] -> write MB/s, read MB/s, 4 KiB read IOPS, write and read CPU-s per GB
  local common=(--name=seq --filename="$1/f" --size=1G --bs=1M --direct=1 --ioengine=libaio --iodepth=8 "${@:2}")
  local w r iops wc rc
  read -r w _ wc < <(fio_rate "${common[@]}" --rw=write --end_fsync=1)
  sync; echo 3 >/proc/sys/vm/drop_caches
  read -r r _ rc < <(fio_rate "${common[@]}" --rw=read)
  read -r _ iops _ < <(fio_rate --name=rand --filename="$1/f" --size=1G --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=32 --rw=randread --time_based --runtime=5)
  echo "$w $r $iops $wc $rc"
}
fs_on_file() {  # fs_on_file FILE -> fs_rates of ext4 on a loop device over FILE, in the cheapest state
  local loop r
  loop=$(losetup --find --show --direct-io=on "$1")
  mkfs.ext4 -q -F "$loop"
  mkdir -p "$dir/mnt-floor"
  mount "$loop" "$dir/mnt-floor"
  fio --name=layout --filename="$dir/mnt-floor/f" --size=1G --bs=8M --rw=write --end_fsync=1 >/dev/null
  r=$(fs_rates "$dir/mnt-floor" --time_based --runtime=4)
  umount "$dir/mnt-floor"
  losetup -d "$loop" 2>/dev/null || true  # autoclear may have detached it already
  echo "$r"
}
cap() {  # cap ENGINE-MBps FLOOR-CPU-PER-GB FLOOR-MBps -> the highest % of the engine figure a mount can reach
  awk -v e="$1" -v p="$2" -v f="$3" -v n="$cores" \
    'BEGIN { c = n * 1000 / e; x = 100 * c / (c + p); y = 100 * f / e; printf "%.1f", (x < y ? x : y) }'
}
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }

echo "machine: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); folder $dir ($(df -T "$dir" | awk 'NR==2 {print $2}'))"
fmt='%-9s %8s %8s %8s %8s %6s %6s %8s %6s %6s %6s %6s\n'
printf "$fmt" chain eng-enc eng-dec fs-write fs-read w% r% 4k-IOPS cpu/GB-w cpu/GB-r cap-w% cap-r%

floor_row() { printf "$fmt" "$1" - - "$(calc "$2")" "$(calc "$3")" - - "$(calc "$4")" "$(calc "$5" 2)" "$(calc "$6" 2)" - -; }
fallocate -l 1536M "$dir/floor.img"
read -r lw lr liops lwc lrc < <(fs_on_file "$dir/floor.img")
rm -f "$dir/floor.img"
floor_row loop "$lw" "$lr" "$liops" "$lwc" "$lrc"
mkdir "$dir/fuse-floor"
"$(dirname "$bin")/fuse_floor" "$dir/fuse-floor" 1610612736 > "$dir/fuse-floor.report" &
floor_pid=$!
for _ in $(seq 50); do mountpoint -q "$dir/fuse-floor" && break; sleep 0.1; done
read -r fw fr fiops fwc frc < <(fs_on_file "$dir/fuse-floor/volume")
umount "$dir/fuse-floor"
wait "$floor_pid"
read -r _ copy_s _ copy_bytes < "$dir/fuse-floor.report"
copy_per_gb=$(awk -v s="$copy_s" -v b="$copy_bytes" 'BEGIN { print (b > 0 ? s / (b / 1e9) : 0) }')
fwc=$(awk -v a="$fwc" -v b="$copy_per_gb" 'BEGIN { print a - b }')
floor_row fuse "$fw" "$fr" "$fiops" "$fwc" "$frc"
top_w=$(max "$lw" "$fw") top_r=$(max "$lr" "$fr")

for c in $chains; do
  read -r enc dec < <("$bin" benchmark --xts-only --engine cpu --encryption "$c" --size 64M --json |
    python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["encrypt_MBps"], r["decrypt_MBps"])')
  printf 'bench password\n' | "$bin" create "$dir/$c.hc" --size 1536M --encryption "$c" --pim 1 --filesystem ext4 \
    --password-stdin -q >/dev/null
  mp=$dir/mnt-$c
  printf 'bench password\n' | "$bin" mount "$dir/$c.hc" "$mp" --pim 1 --password-stdin >/dev/null
  read -r w r iops wc rc < <(fs_rates "$mp")
  "$bin" dismount "$mp"
  rm -f "$dir/$c.hc"
  printf "$fmt" "$c" "$(calc "$enc")" "$(calc "$dec")" "$(calc "$w")" "$(calc "$r")" \
    "$(calc "100 * $w / $enc")" "$(calc "100 * $r / $dec")" "$(calc "$iops")" "$(calc "$wc" 2)" "$(calc "$rc" 2)" \
    "$(cap "$enc" "$fwc" "$top_w")" "$(cap "$dec" "$frc" "$top_r")"
done
echo "(MB/s = 1e6 bytes/s; eng = warpvol benchmark --engine cpu --size 64M, all cores; cpu/GB = busy CPU-s per GB;"
echo " fuse's cpu/GB-w leaves out its store copies, $(calc "$copy_per_gb" 3) CPU-s per GB; cap = the most a mount can"
echo " reach on these cores, from the fuse floor's cost and the faster floor's rate; see the script's header)"
