#!/usr/bin/env bash
# Export against the engine, round by round (goal: export at >= 80% of the engine figure). On a small shared
# machine the engine figure itself swings by 10-20% from minute to minute, so a ratio of two medians taken minutes
# apart mostly measures that swing. Here each round takes the engine's decrypt figure (`warpvol benchmark`, all
# cores, 64 MiB) and right after it exports the volume to /dev/null; the ratio is export's data phase (its own -v
# line: from the open header to the last byte written) against that figure. The median of the rounds is reported.
# Usage: bench/export_ratio.sh [BUILD_DIR] [FOLDER for the 1 GiB file] [CHAIN] [ROUNDS]
#        (defaults: build/, $TMPDIR, serpent, 10)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
dir=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/warpvol-bench.XXXXXX")
chain=${3:-serpent}
rounds=${4:-10}
trap 'rm -rf "$dir"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); folder $dir ($(df -T "$dir" | awk 'NR==2 {print $2}'))"
# A full create: the data area is random-looking ciphertext, as in a used volume (zeros would flatter table lookups).
printf 'bench password\n' | "$bin" create --filesystem none "$dir/v.hc" --size 1G --encryption "$chain" --password-stdin -q >/dev/null
for r in $(seq "$rounds"); do
  dec=$("$bin" benchmark --xts-only --engine cpu --encryption "$chain" --size 64M --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["decrypt_MBps"])')
  phase=$(printf 'bench password\n' | "$bin" export "$dir/v.hc" - --password-stdin -q -v 2>&1 >/dev/null |
    sed -n 's/.*exported [0-9]* bytes to .* in \([0-9.]*\) s$/\1/p')
  echo "$dec $phase"
done | python3 -c '
import statistics, sys
data = 1073479680  # the data area of a 1 GiB container
ratios = []
for line in sys.stdin:
    dec, secs = map(float, line.split())
    rate = data / secs / 1e6
    ratios.append(rate / dec)
    print(f"engine decrypt {dec:7.1f} MB/s   export data phase {secs:.3f} s = {rate:7.1f} MB/s   {100 * rate / dec:5.1f}%")
print(f"export / engine over {len(ratios)} rounds: median {100 * statistics.median(ratios):.1f}%, "
      f"min {100 * min(ratios):.1f}%, max {100 * max(ratios):.1f}%, {sum(r >= 0.8 for r in ratios)} rounds at 80% or more")'
