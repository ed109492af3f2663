#!/bin/bash
# `warpvol gpu-agent` end to end, hosting the CPU engine (--host-cpu-engine) so that machines without a GPU run it:
# start / status / a second start refused / stop / idle exit; import, export and re-encryption with --engine gpu
# through the agent, checked by the independent VeraCrypt reader (tests/oracle/vc_oracle.py); --engine auto's rule
# for jobs that write one file from one thread (taken or not, said under --verbose); the agent killed with
# SIGKILL in the middle of a re-encryption: the command fails with the I/O exit code and a clear line, and the same
# re-encryption resumed without the agent ends with the original plaintext. Args: warpvol binary, source dir.
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
. "$SRC/tests/scripts/lib_oracle.sh"
require_oracle
BASE=/tmp
[ -w /dev/shm ] && BASE=/dev/shm
T=$(mktemp -d "$BASE/wv-agent-XXXXXX")
export WARPVOL_GPU_AGENT_SOCKET="$T/run/gpu-agent.sock"
unset WARPVOL_GPU_AGENT
cleanup() { "$WV" gpu-agent stop > /dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/run/gpu-agent.log" ] && sed 's/^/  log: /' "$T/run/gpu-agent.log"; exit 1; }
wv() { printf 'pw\n' | "$WV" "$@" --password-stdin --pim 1 --hash sha512 -q; }
agent_pid() { "$WV" gpu-agent status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])'; }

"$WV" gpu-agent status > /dev/null 2>&1; [ $? -eq 3 ] || fail "status without an agent should exit 3"
"$WV" gpu-agent start --host-cpu-engine --idle-exit 0 2> "$T/start.err" || fail "start: $(cat "$T/start.err")"
grep -q "GPU agent started: pid" "$T/start.err" || fail "start said: $(cat "$T/start.err")"
"$WV" gpu-agent status > "$T/status" || fail "status with an agent"
grep -q "^GPU agent pid" "$T/status" || fail "status said: $(cat "$T/status")"
[ "$(stat -c %a "$T/run")" = 700 ] || fail "the socket's folder is not 0700"
"$WV" gpu-agent start --host-cpu-engine > /dev/null 2>&1; rc=$?
[ $rc -eq 5 ] || fail "a second start should exit 5 (busy), got $rc"

# Through the agent, read back by the oracle.
head -c $((64 << 20)) /dev/urandom > "$T/img"
WANT=$(sha256sum "$T/img" | cut -d' ' -f1)
wv import "$T/img" "$T/i.hc" --encryption aes --engine gpu --verbose 2> "$T/import.err" || fail "import: $(cat "$T/import.err")"
grep -q "the GPU agent (pid [0-9]*) serves the job" "$T/import.err" || fail "import did not use the agent: $(cat "$T/import.err")"
[ "$(oracle verify "$T/i.hc" --password pw --pim 1)" = "$WANT" ] || fail "the oracle reads other data from the import"
wv export "$T/i.hc" "$T/out" --engine gpu || fail "export"
cmp -s "$T/img" "$T/out" || fail "export through the agent differs from the image"
wv reencrypt "$T/i.hc" --engine gpu --no-hidden-volume || fail "reencrypt"
[ "$(oracle verify "$T/i.hc" --password pw --pim 1)" = "$WANT" ] || fail "the oracle reads other data after re-encryption"

# --engine auto through the agent: a job that writes one file from one thread measures the CPU engine for its
# passes and says what it chose (either, by this machine's speed); an export to standard output, a batch of
# two containers at once and a re-encryption with journal resilience do not.
one_writer="the job writes one file from one thread"
wv import "$T/img" "$T/a.hc" --encryption aes --engine auto --verbose 2> "$T/auto.err" || fail "auto import: $(cat "$T/auto.err")"
grep -q "$one_writer" "$T/auto.err" || fail "auto import: no one-writer choice: $(cat "$T/auto.err")"
[ "$(oracle verify "$T/a.hc" --password pw --pim 1)" = "$WANT" ] || fail "the oracle reads other data from the auto import"
wv export "$T/a.hc" "$T/aout" --engine auto --verbose 2> "$T/auto.err" || fail "auto export: $(cat "$T/auto.err")"
grep -q "$one_writer" "$T/auto.err" || fail "auto export to a file: no one-writer choice"
cmp -s "$T/img" "$T/aout" || fail "auto export differs from the image"
wv export "$T/a.hc" - --engine auto --verbose 2> "$T/auto.err" | cmp -s "$T/img" - || fail "auto export to stdout differs"
grep -q "$one_writer" "$T/auto.err" && fail "auto export to stdout took the one-writer rule"
cp "$T/a.hc" "$T/b.hc"
wv reencrypt "$T/a.hc" "$T/b.hc" --jobs 2 --engine auto --verbose --no-hidden-volume --new-encryption aes 2> "$T/auto.err" ||
  fail "auto batch: $(cat "$T/auto.err")"
grep -q "$one_writer" "$T/auto.err" && fail "a batch of two at once took the one-writer rule"
wv reencrypt "$T/a.hc" --engine auto --verbose --no-hidden-volume --new-encryption serpent 2> "$T/auto.err" ||
  fail "auto reencrypt: $(cat "$T/auto.err")"
grep -q "$one_writer.*re-encrypting AES to Serpent" "$T/auto.err" || fail "auto reencrypt: no one-writer choice: $(cat "$T/auto.err")"
wv reencrypt "$T/a.hc" --engine auto --verbose --no-hidden-volume --new-encryption aes --resilience journal \
  2> "$T/auto.err" || fail "auto reencrypt back to AES: $(cat "$T/auto.err")"
grep -q "$one_writer" "$T/auto.err" && fail "a re-encryption with journal resilience took the one-writer rule"
[ "$(oracle verify "$T/a.hc" --password pw --pim 1)" = "$WANT" ] || fail "the oracle reads other data after auto's re-encryptions"
[ "$(oracle verify "$T/b.hc" --password pw --pim 1)" = "$WANT" ] || fail "the oracle reads other data from the batch's second"
rm -f "$T/a.hc" "$T/b.hc" "$T/aout"

# The agent killed mid-job: the command says so and fails; resumed without the agent, the data is intact.
ORIG=$(oracle create "$T/k.hc" --size $((512 << 20)) --password pw --pim 1 --seed agent) || fail "oracle create"
killed=
for attempt in 1 2 3; do
  pid=$(agent_pid) || fail "no agent pid"
  wv reencrypt "$T/k.hc" --engine gpu --no-hidden-volume --new-encryption serpent-twofish-aes 2> "$T/k.err" &
  job=$!
  sleep 0.$((5 - attempt))
  kill -9 "$pid"
  wait $job; rc=$?
  "$WV" gpu-agent start --host-cpu-engine --idle-exit 0 2> /dev/null || fail "restart"
  if [ $rc -eq 0 ]; then  # finished before the kill: back to AES, and again, sooner
    wv reencrypt "$T/k.hc" --engine cpu --no-hidden-volume --new-encryption aes 2> /dev/null || fail "back to AES"
    continue
  fi
  [ $rc -eq 3 ] || fail "killed agent: exit $rc, expected 3 (I/O): $(cat "$T/k.err")"
  grep -q "GPU agent (pid $pid) went away" "$T/k.err" || fail "no clear line: $(cat "$T/k.err")"
  killed=1
  break
done
[ -n "$killed" ] || fail "the re-encryption always finished before the agent was killed"
WARPVOL_GPU_AGENT=off wv reencrypt "$T/k.hc" --resume --engine cpu --no-hidden-volume --new-encryption serpent-twofish-aes 2> "$T/r.err" ||
  fail "resume: $(cat "$T/r.err")"
# The oracle reads AES: back to it (through the agent again, restarted above).
wv reencrypt "$T/k.hc" --engine gpu --no-hidden-volume --new-encryption aes || fail "reencrypt back to AES"
[ "$(oracle verify "$T/k.hc" --password pw --pim 1)" = "$ORIG" ] || fail "plaintext changed across the killed agent and the resume"
rm -f "$T/k.hc"

# Idle exit; stop.
"$WV" gpu-agent stop > /dev/null 2>&1
"$WV" gpu-agent start --host-cpu-engine --idle-exit 1 2> /dev/null || fail "start with --idle-exit 1"
sleep 3
"$WV" gpu-agent status > /dev/null 2>&1; [ $? -eq 3 ] || fail "the agent did not end after 1 s without commands"
"$WV" gpu-agent start --host-cpu-engine --idle-exit 0 2> /dev/null || fail "start again"
"$WV" gpu-agent stop 2> "$T/stop.err" || fail "stop"
grep -q "stopped" "$T/stop.err" || fail "stop said: $(cat "$T/stop.err")"
[ -e "$WARPVOL_GPU_AGENT_SOCKET" ] && fail "the socket is still there after stop"
echo "ok"
