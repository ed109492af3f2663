#!/usr/bin/env bash
# bench/fuzz.sh: long fuzzing runs of every tests/fuzz target, one after the other (one core each), with a
# corpus kept between runs in build-fuzz/fuzz-corpus/<target>/, then a table of executions, coverage (libFuzzer's
# final cov = covered edges, ft = features) and crash inputs per target.
#   bench/fuzz.sh SECONDS_PER_TARGET [--runs N] [--keep-going] [TARGET...]
# --keep-going fuzzes on past failing inputs (libFuzzer's fork mode) and counts them all.
# Crash inputs land in build-fuzz/fuzz-artifacts/<target>/: copy each to tests/fuzz/regress/<target>/ (a
# regression input scripts/test.sh runs from then on) and fix it. Exit status: scripts/fuzz.sh's (non-zero when
# any target failed).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  sed -n '2,9p' "$0"
  exit 1
fi
seconds=$1
shift
build="${WARPVOL_FUZZ_BUILD_DIR:-$root/build-fuzz}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$root/scripts/fuzz.sh" --seconds "$seconds" --corpus "$build/fuzz-corpus" "$@" | tee "$log"
rc=${PIPESTATUS[0]}
echo
printf '%-24s %8s %14s %10s %8s %8s %8s %8s\n' target status executions exec/s cov ft units crashes
sed -n 's/^fuzz \([^:]*\): \([A-Za-z]*\), [0-9]* committed inputs, \([0-9]*\) executions in \([0-9]*\) s, cov \([0-9]*\), ft \([0-9]*\), corpus \([0-9]*\) units, \([0-9]*\) new crash inputs$/\1 \2 \3 \4 \5 \6 \7 \8/p' "$log" |
  while read -r t st ex s cov ft units cr; do
    printf '%-24s %8s %14s %10s %8s %8s %8s %8s\n' "$t" "$st" "$ex" "$(( s > 0 ? ex / s : ex ))" "$cov" "$ft" "$units" "$cr"
  done
exit "$rc"
