#!/bin/bash
# bench/jobs.sh end to end at a tiny size: every job of every engine this machine has must run (a job that fails
# prints "FAILED" and the benchmark goes on, so a broken command line in the script would only show as a missing
# row). Checks the rows and the results file, not the figures. Two rounds per figure: a job whose output a second
# round finds in place would fail there. AGENT=1 adds the rows through `warpvol gpu-agent` (hosting the CPU engine
# here, --host-cpu-engine, so that a machine without a GPU runs them too) and the floors measured beside each
# job's rows. Args: warpvol binary, source dir.
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
T=$(mktemp -d /tmp/wv-bench-jobs-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
RESULTS="$T/r.tsv" AGENT=1 AGENT_ARGS=--host-cpu-engine STREAMS="1 2" READERS=2 BATCH_N=2 BATCH_SIZE=8M ROUNDS=2 \
  bash "$SRC/bench/jobs.sh" "$(dirname "$WV")" "$T" 8M serpent > "$T/out" 2> "$T/err" || fail "jobs.sh exited $?: $(tail -5 "$T/err")"
grep -q "FAILED" "$T/err" && fail "a job failed: $(grep -A3 FAILED "$T/err" | head -12)"
engines=4; WARPVOL_GPU_AGENT=off "$WV" benchmark --engine gpu --xts-only --size 1M --min-time 0.01 --encryption aes > /dev/null 2>&1 && engines=5
rows=$(wc -l < "$T/r.tsv")
[ "$rows" -eq $((7 * engines)) ] || fail "expected $((7 * engines)) result rows (7 jobs x $engines engines), got $rows: $(cat "$T/out")"
for job in export_null export_file create import reenc_checksum reenc_journal batch; do
  for e in cpu gpu+agent auto+agent; do
    grep -q "^$job	serpent	$e	" "$T/r.tsv" || fail "no row for $job with --engine $e"
  done
done
# Each job's floor is measured again beside its rows (BESIDE=1, the default), and every row has a floor to be
# compared with: the export's the lower of its read floor and the engine's figure.
beside=$(grep -c "^  beside these rows: " "$T/out")
[ "$beside" -ge 7 ] || fail "expected a floor beside each job's rows, got $beside: $(cat "$T/out")"
awk -F'\t' '$5 != "FAILED" && $6 == "" { bad = 1 } END { exit bad }' "$T/r.tsv" || fail "a row without its floor: $(cat "$T/r.tsv")"
# auto against the better engine, per job: with two rounds, the rounds' own ratios too.
paired=$(grep -c "auto+agent .*round by round .*(median of 2)" "$T/out")
[ "$paired" -eq 7 ] || fail "expected 7 auto lines with round-by-round ratios, got $paired: $(sed -n '/^auto \//,$p' "$T/out")"
echo "ok: $rows rows, $beside floors beside them, $paired auto comparisons round by round"
