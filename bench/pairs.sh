#!/usr/bin/env bash
# Before/after timing of two whole commands on a shared machine, with public tools only (bash's `time`).
# Usage: bench/pairs.sh [-n PAIRS] [-w WARMUP] 'COMMAND_A' 'COMMAND_B'   (defaults: 10 pairs, 1 warm-up run each)
#
# A machine's speed drifts within a minute, and on some hosts consecutive runs of one command alternate fast and slow
# (docs/perf/measurements-2026-12-05-session51.md): the medians of two series taken one after the other mostly measure
# that. So the commands run in pairs, in mirrored order (A B, B A, A B, ...: each command has the first place in half of
# the pairs) and A/B is taken pair by pair. Each command is one string run by `bash -c` (a pipe or a redirection may be
# part of it); its input is empty and its output is thrown away unless it redirects them. Wall, user and system seconds
# are bash's own accounting of the finished child and what it waited for.
#
# Prints one line per pair ("pair N: A wall/cpu, B wall/cpu, A/B wall, A/B cpu") and a summary: each command's
# median wall and CPU seconds, and the median of the per-pair ratios with their range. It measures, never judges;
# the exit status is 1 where a command failed (its exit status is named) and 2 for bad arguments.
set -euo pipefail

pairs=10
warmup=1
while getopts "n:w:" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    w) warmup=$OPTARG ;;
    *) echo "usage: $0 [-n PAIRS] [-w WARMUP] 'COMMAND_A' 'COMMAND_B'" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ] || ! [[ $pairs =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [-n PAIRS] [-w WARMUP] 'COMMAND_A' 'COMMAND_B'" >&2
  exit 2
fi
cmd_a=$1
cmd_b=$2

# run COMMAND: prints "wall cpu" (seconds) of one run.
run() {
  local t rc=0
  t=$( { TIMEFORMAT='%R %U %S'; time bash -c "$1" < /dev/null > /dev/null 2>&1 || rc=$?; } 2>&1; echo "rc=$rc" )
  rc=${t##*rc=}
  if [ "$rc" != 0 ]; then
    echo "$0: command failed (exit status $rc): $1" >&2
    exit 1
  fi
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3; exit }' <<< "$t"
}

for ((i = 0; i < warmup; i++)); do
  run "$cmd_a" > /dev/null
  run "$cmd_b" > /dev/null
done
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then
    a=$(run "$cmd_a"); b=$(run "$cmd_b")
  else
    b=$(run "$cmd_b"); a=$(run "$cmd_a")
  fi
  echo "$i $a $b"
done | awk '
function median(v, n,   i, j, t) {
  for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function range(v, n,   i, lo, hi) {
  lo = hi = v[1]
  for (i = 2; i <= n; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
  return sprintf("%.3f-%.3f", lo, hi)
}
{
  n++
  aw[n] = $2; ac[n] = $3; bw[n] = $4; bc[n] = $5
  rw[n] = $4 > 0 ? $2 / $4 : 0; rc[n] = $5 > 0 ? $3 / $5 : 0
  printf "pair %d: A %.3f s wall, %.3f s cpu; B %.3f s wall, %.3f s cpu; A/B wall %.3f, cpu %.3f\n", \
    $1, $2, $3, $4, $5, rw[n], rc[n]
}
END {
  if (!n) exit
  printf "A: median wall %.3f s, cpu %.3f s\n", median(aw, n), median(ac, n)
  printf "B: median wall %.3f s, cpu %.3f s\n", median(bw, n), median(bc, n)
  rr = range(rw, n); rcr = range(rc, n)
  printf "A/B over %d pairs: wall %.3f (%s), cpu %.3f (%s)\n", n, median(rw, n), rr, median(rc, n), rcr
}'
