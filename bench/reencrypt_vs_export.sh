#!/usr/bin/env bash
# Re-encryption speed against export speed (goal: reencrypt >= 50% of export for the same container and
# engine), measured side by side in one run: a 1 GiB container is created, then exported and re-encrypted in
# turn (ROUNDS times each, alternating, so both see the same machine load), with both resilience modes.
# Throughput = data-area bytes / wall time of the whole command (PIM 1, --hash/--encryption given: the KDF costs
# a few ms and is included for both). Export writes a plaintext file in the same folder (the same amount of
# writing as re-encryption's data writes; the journal and checksum work are re-encryption's extra).
# Usage: bench/reencrypt_vs_export.sh [BUILD_DIR] [FOLDER for the 1 GiB file] [CHAIN] [ROUNDS] [ENGINE]
#        (defaults: build/, /dev/shm or $TMPDIR, aes, 3, cpu)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
base=${2:-}
if [ -z "$base" ]; then base=${TMPDIR:-/tmp}; [ -w /dev/shm ] && base=/dev/shm; fi
dir=$(mktemp -d "$base/warpvol-reenc-bench.XXXXXX")
chain=${3:-aes}
rounds=${4:-3}
engine=${5:-cpu}
trap 'rm -rf "$dir"' EXIT
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
size=$((1 << 30))
data=$((size - 262144))
v="$dir/v.hc"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "folder: $dir ($(df -T "$dir" | awk 'NR==2 {print $2}')); chain $chain; engine $engine; $rounds rounds"
printf 'pw\n' | "$bin" create --filesystem none "$v" --size 1G --encryption "$chain" --hash sha512 --pim 1 --password-stdin -q > /dev/null

export_once() {
  local t0 t1
  rm -f "$dir/out.raw"
  t0=$(now)
  printf 'pw\n' | "$bin" export "$v" "$dir/out.raw" --password-stdin --pim 1 --hash sha512 --encryption "$chain" \
    --engine "$engine" -q
  t1=$(now)
  rm -f "$dir/out.raw"
  calc "$data / ($t1 - $t0) / 1e6"
}
reencrypt_once() {  # resilience
  local t0 t1
  t0=$(now)
  printf 'pw\n' | "$bin" reencrypt "$v" --password-stdin --pim 1 --hash sha512 --encryption "$chain" \
    --no-hidden-volume --resilience "$1" --engine "$engine" -q > /dev/null
  t1=$(now)
  calc "$data / ($t1 - $t0) / 1e6"
}

ex=() ck=() jn=()
for r in $(seq "$rounds"); do
  e=$(export_once); c=$(reencrypt_once checksum); j=$(reencrypt_once journal)
  echo "round $r: export $e MB/s, reencrypt checksum $c MB/s, reencrypt journal $j MB/s"
  ex+=("$e") ck+=("$c") jn+=("$j")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
me=$(median "${ex[@]}") mc=$(median "${ck[@]}") mj=$(median "${jn[@]}")
echo "median: export $me MB/s; reencrypt checksum $mc MB/s = $(calc "100 * $mc / $me")% of export;" \
  "reencrypt journal $mj MB/s = $(calc "100 * $mj / $me")% of export"
