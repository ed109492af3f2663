#!/usr/bin/env bash
# All cores against one core, with the machine's own capacity beside it. On a shared virtual machine
# the cores are not equal and not steady (a host hyperthread sibling or a neighbour's load takes part of one), so
# `16 threads / 1 thread` mixes the engine's overhead with the machine's. This runs, alternating ROUNDS times:
#   - N single-thread benchmark processes at once, each pinned to its own CPU: the sum is what N cores deliver
#     with no coordination at all;
#   - the engine with N threads (one process: the thread pool, chunking and the request's tail included);
#   - one thread alone.
# engine / sum measures the engine's parallel overhead; sum / (N x one) the machine's.
# Usage: bench/engine_scaling.sh [BUILD_DIR] [CHAINS="serpent aes"] [ROUNDS=2] [SIZE=32M]   (N = every CPU)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
chains=${2:-serpent aes}
rounds=${3:-2}
size=${4:-32M}
n=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The figures of a run: encrypt and decrypt MB/s from the last line ("  Serpent  1389.4  1206.4  Serpent:avx512").
figures() { tail -1 | awk '{printf "%.0f %.0f", $(NF-2), $(NF-1)}'; }
run() { "$bin" benchmark --engine cpu --xts-only --encryption "$1" --threads "$2" --size "$size" --min-time 1; }

echo "machine: $n CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); MB/s encrypt decrypt"
for c in $chains; do
  for r in $(seq "$rounds"); do
    for i in $(seq 0 $((n - 1))); do taskset -c "$i" "$bin" benchmark --engine cpu --xts-only --encryption "$c" \
      --threads 1 --size "$size" --min-time 1 > "$tmp/$i.txt" 2>&1 & done
    wait
    read -r se sd < <(for i in $(seq 0 $((n - 1))); do figures < "$tmp/$i.txt"; echo; done |
      awk '{e += $1; d += $2} END {printf "%.0f %.0f\n", e, d}')
    read -r ee ed < <(run "$c" "$n" | figures; echo)
    read -r oe od < <(run "$c" 1 | figures; echo)
    awk -v c="$c" -v n="$n" -v se="$se" -v sd="$sd" -v ee="$ee" -v ed="$ed" -v oe="$oe" -v od="$od" 'BEGIN {
      printf "%-20s %2d processes %7d %7d | engine %2d threads %7d %7d | one thread %6d %6d", c, n, se, sd, n, ee, ed, oe, od
      printf " | engine/processes %.2f %.2f | engine/one %.1f %.1f (goal %.1f)\n", ee / se, ed / sd, ee / oe, ed / od, 0.9 * n }'
  done
done
