#!/usr/bin/env bash
# Create and export speed (issues 3 and 7): `warpvol create --size 1G` with a full fill and `warpvol export` of the
# result, next to the engine's own figure for the same chain (`warpvol benchmark`, all cores, measured in the same
# run). Goals: create >= 80% of the engine's encrypt figure and >= 4x faster than VeraCrypt's 5.9 s for Serpent on
# the reference machine; export >= 80% of the engine's decrypt figure.
# Usage: bench/create_export.sh [BUILD_DIR] [FOLDER for the 1 GiB file] [CHAIN]   (defaults: build/, $TMPDIR, serpent)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
dir=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/warpvol-bench.XXXXXX")
chain=${3:-serpent}
trap 'rm -rf "$dir"' EXIT
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
size=$((1 << 30))
data=$((size - 262144))  # 1G container: data area = size - 256 KiB of headers

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); folder $dir ($(df -T "$dir" | awk 'NR==2 {print $2}'))"
# The engine figure varies by 10-20% from run to run on a small shared machine: take the median of three.
read -r enc dec < <(for i in 1 2 3; do "$bin" benchmark --xts-only --engine cpu --encryption "$chain" --size 64M --json; done |
  python3 -c '
import json, sys, statistics
runs = [json.loads(x)[0] for x in sys.stdin.read().replace("]\n[", "]\x00[").split("\x00")]
print(statistics.median(r["encrypt_MBps"] for r in runs), statistics.median(r["decrypt_MBps"] for r in runs))')
echo "engine $chain, all cores, median of 3: encrypt $enc MB/s, decrypt $dec MB/s"
kdf=$("$bin" benchmark --kdf-only --hash sha512 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["seconds"])')

# The folder's own write speed bounds create: 1 GiB of zeros written and fsync()ed by dd.
t0=$(now)
dd if=/dev/zero of="$dir/dd" bs=8M count=128 conv=fsync status=none
t1=$(now)
rm -f "$dir/dd"
echo "folder write speed: dd 1 GiB + fsync: $(calc "$size / ($t1 - $t0) / 1e6") MB/s"

# Create and export, three times each like the engine figure; the median run is reported, every run listed.
median() { tr ' ' '\n' | sort -n | sed -n 2p; }
totals="" fills=""
for i in 1 2 3; do
  rm -f "$dir/v.hc"
  t0=$(now)
  report=$(printf 'bench password\n' | "$bin" create --filesystem none "$dir/v.hc" --size 1G --encryption "$chain" --password-stdin 2>/dev/null)
  t1=$(now)
  totals="$totals $(calc "$t1 - $t0")"
  # create reports its fill phase (encrypt + write of the data area) itself: "Fill: 1.21 s, 885.4 MB/s (total ...)".
  fills="$fills $(sed -n 's/^Fill: *[0-9.]* s, \([0-9.]*\) MB\/s.*/\1/p' <<< "$report")"
done
total=$(echo $totals | median)
fill=$(echo $fills | median)
echo "create --size 1G --encryption $chain (runs:$totals s): median $total s in all; fill phase $fill MB/s =" \
  "$(calc "100 * $fill / $enc")% of the engine; $(calc "5.9 / $total")x faster than VeraCrypt's 5.9 s (Serpent)"

totals="" phases=""
for i in 1 2 3; do
  t0=$(now)
  # -v: export reports its data phase (read + decrypt + write, after the header is open): "exported N bytes ... in S s".
  report=$(printf 'bench password\n' | "$bin" export "$dir/v.hc" - --password-stdin -q -v 2>&1 >/dev/null)
  t1=$(now)
  totals="$totals $(calc "$t1 - $t0")"
  phases="$phases $(sed -n 's/.*exported [0-9]* bytes to .* in \([0-9.]*\) s$/\1/p' <<< "$report")"
done
total=$(echo $totals | median)
phase=$(echo $phases | median)
rate=$(calc "$data / ($total - $kdf) / 1e6")
prate=$(calc "$data / $phase / 1e6")
echo "export to /dev/null (runs:$totals s): median $total s in all; less one key derivation ($kdf s): $rate MB/s =" \
  "$(calc "100 * $rate / $dec")% of the engine; data phase (runs:$phases s): $prate MB/s = $(calc "100 * $prate / $dec")%"
