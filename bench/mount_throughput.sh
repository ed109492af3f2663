#!/usr/bin/env bash
# Mounted-volume throughput (issue 4, performance), as root: for each chain, a 1.5 GiB container with ext4
# (`warpvol create --filesystem ext4`, fully filled like a real container: a --quick one is a sparse file, whose
# first writes also allocate and zero pages), mounted; 1 GiB written sequentially with direct I/O (fio, 1 MiB
# blocks, fsync at the end), the caches dropped, read back the same way; then random 4 KiB direct reads (IOPS). Next to
# it, in the same run, the engine's own figures for that chain (`warpvol benchmark --engine cpu`, all cores).
# Goals: >= 70% of the engine figure for AES, >= 85% for Serpent and Twofish.
# Usage: bench/mount_throughput.sh [BUILD_DIR] [FOLDER] [CHAINS]   (defaults: build/, /var/tmp, "aes serpent twofish")
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE, loop devices, mount)" >&2; exit 1; }
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
dir=$(mktemp -d "${2:-/var/tmp}/warpvol-mbench.XXXXXX")
chains=${3:-aes serpent twofish}
export WARPVOL_RUNTIME_DIR=$dir/run WARPVOL_MEDIA_DIR=$dir/media
trap '"$bin" dismount --all --force >/dev/null 2>&1; rm -rf "$dir"' EXIT
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
fio_rate() {  # fio_rate JOB-ARGS... -> MB/s (1e6) or IOPS
  fio --output-format=json "$@" | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
rw = "write" if j["write"]["io_bytes"] else "read"
print(j[rw]["bw_bytes"] / 1e6, j[rw]["iops"])'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); folder $dir ($(df -T "$dir" | awk 'NR==2 {print $2}'))"
printf '%-9s %10s %10s %10s %10s %7s %7s %12s\n' chain eng-enc eng-dec fs-write fs-read w% r% 4k-read-IOPS
for c in $chains; do
  read -r enc dec < <("$bin" benchmark --xts-only --engine cpu --encryption "$c" --size 64M --json |
    python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["encrypt_MBps"], r["decrypt_MBps"])')
  printf 'bench password\n' | "$bin" create "$dir/$c.hc" --size 1536M --encryption "$c" --pim 1 --filesystem ext4 \
    --password-stdin -q
  mp=$dir/mnt-$c
  printf 'bench password\n' | "$bin" mount "$dir/$c.hc" "$mp" --pim 1 --password-stdin >/dev/null
  common=(--name=seq --filename="$mp/f" --size=1G --bs=1M --direct=1 --ioengine=libaio --iodepth=8)
  read -r w _ < <(fio_rate "${common[@]}" --rw=write --end_fsync=1)
  sync; echo 3 >/proc/sys/vm/drop_caches
  read -r r _ < <(fio_rate "${common[@]}" --rw=read)
  read -r _ iops < <(fio_rate --name=rand --filename="$mp/f" --size=1G --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=32 --rw=randread --time_based --runtime=5)
  "$bin" dismount "$mp"
  rm -f "$dir/$c.hc"
  printf '%-9s %10.0f %10.0f %10.0f %10.0f %6s%% %6s%% %12.0f\n' "$c" "$enc" "$dec" "$w" "$r" \
    "$(calc "100 * $w / $enc")" "$(calc "100 * $r / $dec")" "$iops"
done
echo "(MB/s = 1e6 bytes/s; eng = warpvol benchmark --engine cpu --size 64M, all cores)"
