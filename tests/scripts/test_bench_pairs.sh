#!/bin/bash
# bench/pairs.sh: the runs' order (one warm-up of each, then pairs in mirrored order), the ratios it computes from
# bash's own times, and its exit status for a failing command and for bad arguments. Args: warpvol binary (unused),
# source dir.
set -u
SRC=${2:?source dir}
T=$(mktemp -d /tmp/wv-bench-pairs-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
P="$SRC/bench/pairs.sh"

bash "$P" -n 4 -w 1 "echo A >> $T/order" "echo B >> $T/order" > "$T/out" || fail "pairs.sh exited $?: $(cat "$T/out")"
order=$(tr -d '\n' < "$T/order")
[ "$order" = "ABABBAABBA" ] || fail "runs in the order $order, not ABABBAABBA (warm-up, then A B, B A, A B, B A)"
[ "$(grep -c '^pair [1-4]: A ' "$T/out")" -eq 4 ] || fail "expected 4 pair lines: $(cat "$T/out")"
grep -q "^A/B over 4 pairs: wall " "$T/out" || fail "no summary line: $(cat "$T/out")"

# A command that sleeps three times as long: the ratio is about 3 in every pair (loose bounds: a loaded machine adds
# the start of each process to both).
bash "$P" -n 3 -w 0 "sleep 0.6" "sleep 0.2" > "$T/out" || fail "pairs.sh exited $?: $(cat "$T/out")"
ratio=$(sed -n 's/^A\/B over 3 pairs: wall \([0-9.]*\) .*/\1/p' "$T/out")
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.8 && r <= 3.3) }' ||
  fail "sleep 0.6 against sleep 0.2 gave $ratio: $(cat "$T/out")"
a=$(sed -n 's/^A: median wall \([0-9.]*\) s.*/\1/p' "$T/out")
awk -v a="$a" 'BEGIN { exit !(a >= 0.59 && a <= 0.9) }' || fail "A's median wall is not about 0.6 s: $(cat "$T/out")"

# A command that fails stops the timing with status 1 and names it; bad arguments give status 2.
bash "$P" -n 2 "exit 3" "true" > "$T/out" 2> "$T/err"
rc=$?
[ "$rc" -eq 1 ] || fail "a failing command gave status $rc"
grep -q "command failed (exit status 3): exit 3" "$T/err" || fail "the failure is not named: $(cat "$T/err")"
for args in "-n 0 true true" "true" "-n x true true"; do
  # shellcheck disable=SC2086  # the words are the arguments
  bash "$P" $args > /dev/null 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "arguments '$args' gave status $rc, not 2"
done
echo "PASS"
