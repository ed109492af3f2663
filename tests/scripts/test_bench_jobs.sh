#!/bin/bash
# bench/jobs.sh end to end at a tiny size: every job of every engine this machine has must run (a job that fails prints
# "FAILED" and the benchmark goes on, so a broken command line in the script would only show as a missing row). Checks
# the rows and the results file, not the figures. Three rounds per figure: a job whose output a later round finds in
# place would fail there, and the rounds' order shows (a mirrored pair, then the next pair one row on). AGENT=1 adds the
# rows through `warpvol gpu-agent` (hosting the CPU engine here, --host-cpu-engine, so that a machine without a GPU runs
# them too) and the floors measured beside each job's rows. VERBOSE=1 records the path auto took in each round; LOGS
# keeps each run's stderr, whose times show the order the rows ran in; NAME_CHAIN=0 runs the opening jobs without
# --encryption. Args: warpvol binary, source dir.
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
T=$(mktemp -d /tmp/wv-bench-jobs-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
VERBOSE=1 LOGS="$T/logs" \
RESULTS="$T/r.tsv" AGENT=1 AGENT_ARGS=--host-cpu-engine STREAMS="1 2" READERS=2 BATCH_N=2 BATCH_SIZE=8M ROUNDS=3 \
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
# A floor beside a job's rows reads what the job reads: the container for the exports and the re-encryption, the
# image for the import.
for f in "read one file x.* of v.hc" "copy into a new file x1 .* of v.hc" "copy into a new file x1 .* of img" \
  "rewrite one file in place x1 .* of v.hc"; do
  grep -q "^  beside these rows: $f)" "$T/out" || fail "no floor beside the rows like '$f': $(grep beside "$T/out")"
done
# auto against the better engine, per job: with three rounds, the ratios of a pair of rounds and of the last alone.
paired=$(grep -c "auto+agent .*pair by pair .*(median of 2 pairs of rounds)" "$T/out")
[ "$paired" -eq 7 ] ||
  fail "expected 7 auto lines with pair-by-pair ratios, got $paired: $(sed -n '/^auto \//,$p' "$T/out")"
# auto's path in each round (10th column): one word per round, cpu, gpu or - (no one-writer decision).
awk -F'\t' '$3 ~ /^auto/ && $5 != "FAILED" { n = split($10, p, " "); if (n != 3) bad = 1
  for (i = 1; i <= n; i++) if (p[i] != "cpu" && p[i] != "gpu" && p[i] != "-") bad = 1 } END { exit bad }' "$T/r.tsv" ||
  fail "auto rows without a path per round: $(cut -f1-3,10 "$T/r.tsv")"
# Rounds go in mirrored pairs, each pair one row further on: round 2 runs round 1's rows in reverse, round 3 starts
# with round 1's second row.
order() {  # ROUND: the engines of create's rows in the order their logs were written
  # shellcheck disable=SC2012  # the script's own file names, sorted by time
  ls -tr "$T"/logs/create.serpent.*.r"$1".txt | sed 's/.*create\.serpent\.\(.*\)\.[^.]*\.r[0-9]*\.txt/\1/' | tr '\n' ' '
}
o1=$(order 1); o2=$(order 2); o3=$(order 3)
reversed1=$(echo "$o1" | tr ' ' '\n' | grep . | tac | tr '\n' ' ')
rotated1=$(echo "$o1" | awk '{ for (i = 2; i <= NF; i++) printf "%s ", $i; printf "%s ", $1 }')
[ -n "$o1" ] && [ "$o2" = "$reversed1" ] || fail "round 2 is not round 1 reversed: round 1 $o1, round 2 $o2"
[ "$o3" = "$rotated1" ] || fail "round 3 does not start one row further on: round 1 $o1, round 3 $o3"
# The jobs that open a container name its chain, unless NAME_CHAIN=0: then they run as a VeraCrypt user runs them.
grep -q "^warpvol: opening .* (encryption serpent)" "$T"/logs/export_file.serpent.cpu.*.r1.txt ||
  fail "the export does not name its chain: $(grep opening "$T"/logs/export_file.serpent.cpu.*.r1.txt)"
NAME_CHAIN=0 VERBOSE=1 LOGS="$T/unnamed" JOBS="export_null export_file reenc_checksum batch" ENGINES="cpu auto" \
  FLOORS=copy STREAMS=1 READERS=2 BATCH_N=2 BATCH_SIZE=8M \
  bash "$SRC/bench/jobs.sh" "$(dirname "$WV")" "$T" 8M serpent > "$T/out0" 2> "$T/err0" ||
  fail "jobs.sh with NAME_CHAIN=0 exited $?: $(tail -5 "$T/err0")"
grep -q "FAILED" "$T/err0" && fail "a job failed with NAME_CHAIN=0: $(grep -A3 FAILED "$T/err0" | head -12)"
opened=$(cat "$T"/unnamed/*.txt | grep -c "^warpvol: opening ")
named=$(cat "$T"/unnamed/*.txt | grep -c "^warpvol: opening .*(encryption")
[ "$opened" -eq 8 ] && [ "$named" -eq 0 ] ||
  fail "NAME_CHAIN=0: $opened of 8 runs opened a container, $named of them naming its chain"
echo "ok: $rows rows, $beside floors beside them, $paired auto comparisons pair by pair; NAME_CHAIN=0 names no chain"
