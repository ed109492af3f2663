#!/bin/bash
# `warpvol reencrypt` end to end: a batch of 5 containers with one wrong password (credentials file; mode 0600
# enforced) fails up front and writes nothing anywhere; --skip-bad re-encrypts the other four; --progress-json
# lines are cryptsetup-style (numbers as strings); --resume-only without a journal is refused; SIGINT sent on the job's
# first progress line stops at a safe point with exit 6, the container is refused by info/export/mount with a pointer
# to --resume, a resumed job stops the same way, and running the same command again finishes it; the result is checked
# by an independent reader (tests/oracle/vc_oracle.py); SIGTERM stops fresh and resumed jobs the same way; a journal
# folder without room is refused before anything is written (as root: 1 MiB tmpfs).
# Args: warpvol binary, source dir. Exit 77 = skipped.
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
. "$SRC/tests/scripts/lib_oracle.sh"
require_oracle
"$WV" help reencrypt > /dev/null 2>&1 || { echo "skip: this warpvol has no reencrypt command"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }
T=$(mktemp -d /tmp/wv-reenc-cli-XXXXXX)
PID=""
SMALL=""
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; [ -n "$SMALL" ] && umount "$SMALL"; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export_sha() {  # volume password
  rm -f "$T/x.raw"
  printf '%s\n' "$2" | "$WV" export "$1" "$T/x.raw" --password-stdin --pim 1 --hash sha512 -q || return 1
  sha256sum "$T/x.raw" | cut -d' ' -f1
  rm -f "$T/x.raw"
}

# ---- batch of 5, one wrong password ----
declare -A ORIG
for i in 1 2 3 4 5; do
  ORIG[$i]=$(oracle create "$T/b$i.hc" --size $((2 * 1024 * 1024)) --password "pw$i" --pim 1 --seed "b$i") \
    || fail "oracle create"
done
C="$T/creds.jsonl"
for i in 1 2 3 4 5; do
  p="pw$i"; [ $i = 4 ] && p="WRONG"
  printf '{"volume": "%s", "password": "%s", "pim": 1, "new_password": "new%s", "new_pim": 1, "no_hidden_volume": true}\n' \
    "$T/b$i.hc" "$p" "$i" >> "$C"
done
chmod 644 "$C"
out=$("$WV" reencrypt --credentials-file "$C" --hash sha512 2>&1); rc=$?
[ $rc = 1 ] || fail "credentials file mode 0644 accepted (exit $rc): $out"
echo "$out" | grep -q "0600" || fail "mode message: $out"
chmod 600 "$C"
sums_before=$(sha256sum "$T"/b?.hc)
"$WV" reencrypt --credentials-file "$C" --hash sha512 --new-encryption serpent --jobs 2 > "$T/sum.txt" 2> "$T/err.txt"; rc=$?
[ $rc = 2 ] || fail "batch with a wrong password: exit $rc (want 2): $(cat "$T/err.txt")"
[ "$(sha256sum "$T"/b?.hc)" = "$sums_before" ] || fail "a container was written although one failed pre-flight"
ls "$T"/*.warpvol-reencrypt > /dev/null 2>&1 && fail "journal created although one failed pre-flight"
# Failures: once each, on stderr only, without the container's name repeated inside the reason.
[ "$(grep -c "b4.hc: failed" "$T/err.txt")" = 1 ] || fail "failure line once on stderr: $(cat "$T/err.txt")"
[ "$(grep -c ": skipped" "$T/err.txt")" = 4 ] || fail "skipped lines on stderr: $(cat "$T/err.txt")"
grep -q "failed\|skipped" "$T/sum.txt" && fail "failures also on stdout: $(cat "$T/sum.txt")"
grep "b4.hc: failed" "$T/err.txt" | grep -q "failed: .*b4.hc" && fail "container name repeated: $(cat "$T/err.txt")"

# ---- --dry-run: the pre-flight alone, every container reported, nothing written; a locked container is busy ----
"$WV" reencrypt --credentials-file "$C" --hash sha512 --new-encryption serpent --dry-run > "$T/sum.txt" 2> "$T/err.txt"
rc=$?
[ $rc = 2 ] || fail "--dry-run with a wrong password: exit $rc (want 2): $(cat "$T/err.txt")"
grep -q "b4.hc: failed" "$T/err.txt" || fail "dry-run: the failed container on stderr: $(cat "$T/err.txt")"
[ "$(grep -c ": ready -- normal volume 2 MiB: AES -> Serpent" "$T/sum.txt")" = 4 ] || fail "dry-run: $(cat "$T/sum.txt")"
[ "$(sha256sum "$T"/b?.hc)" = "$sums_before" ] || fail "--dry-run wrote to a container"
ls "$T"/*.warpvol-reencrypt > /dev/null 2>&1 && fail "--dry-run created a journal"
# -o: the lock belongs to flock itself (not to its sleep child), so killing flock releases it.
flock -o -x "$T/b2.hc" sleep 30 &
LOCKER=$!
for _ in $(seq 100); do flock -n -x "$T/b2.hc" true 2>/dev/null || break; sleep 0.05; done
printf 'pw2\n' | "$WV" reencrypt "$T/b2.hc" --password-stdin --pim 1 --hash sha512 --no-hidden-volume --dry-run --json \
  > "$T/sum.txt" 2> "$T/err.txt"; rc=$?
pkill -P "$LOCKER" sleep; kill "$LOCKER"; wait "$LOCKER" 2>/dev/null
[ $rc = 5 ] || fail "--dry-run on a locked container: exit $rc (want 5): $(cat "$T/err.txt")"
grep -q "in use by another warpvol process" "$T/sum.txt" || fail "busy reason: $(cat "$T/sum.txt")"

"$WV" reencrypt --credentials-file "$C" --hash sha512 --new-encryption serpent --jobs 2 --skip-bad --progress-json \
  --verbose > "$T/sum.txt" 2> "$T/progress.txt"; rc=$?
[ $rc = 2 ] || fail "--skip-bad with one bad container: exit $rc (want 2, not all succeeded)"
[ "$(grep -c ": done" "$T/sum.txt")" = 4 ] || fail "summary: $(cat "$T/sum.txt")"
# --verbose: where the batch's time went, the pre-flight of all five apart from the jobs.
grep -q "time: engine ready in [0-9.]* s; then the pre-flight of 5 container(s) .* [0-9.]* s, the jobs [0-9.]* s" \
  "$T/progress.txt" || fail "batch time line: $(grep -v '^{' "$T/progress.txt")"
python3 - "$T/progress.txt" <<'EOF' || fail "progress JSON: $(head -5 "$T/progress.txt")"
import json, sys
n = 0
devices = set()
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    j = json.loads(line)
    for k in ("device", "device_bytes", "device_size", "speed", "eta_ms", "time_ms"):
        assert isinstance(j[k], str), (k, j)
    int(j["device_bytes"]); int(j["device_size"])
    devices.add(j["device"])
    n += 1
assert n >= 5, n
assert "total" in devices and len(devices) >= 5, devices
# The final total once: the last total line is not repeated.
totals = [l for l in open(sys.argv[1]) if l.startswith("{") and json.loads(l)["device"] == "total"]
final = [t for t in totals if json.loads(t)["device_bytes"] == json.loads(t)["device_size"]]
assert len(final) == 1, final
EOF
for i in 1 2 3 5; do
  S=$(export_sha "$T/b$i.hc" "new$i") || fail "export b$i with the new password"
  [ "$S" = "${ORIG[$i]}" ] || fail "b$i plaintext changed"
  printf 'new%s\n' $i | "$WV" info "$T/b$i.hc" --password-stdin --pim 1 --json | grep -q '"Serpent"' || fail "b$i not Serpent"
done
S=$(export_sha "$T/b4.hc" "pw4") || fail "b4 must be untouched"
[ "$S" = "${ORIG[4]}" ] || fail "b4 changed"

# ---- --resume-only without a journal ----
printf 'new1\n' | "$WV" reencrypt "$T/b1.hc" --password-stdin --pim 1 --no-hidden-volume --resume-only > /dev/null 2>&1
[ $? = 1 ] || fail "--resume-only without a journal must be a usage error"

# ---- SIGINT at a safe point, refusal while half done, resume by running the same command ----
V="$T/big.hc"
# 64 hot zones of 1 MiB: the signal goes out on the job's first progress line, so the job is a zone or two in when
# it arrives, however fast the machine (no fixed delay to outrun).
BIG_SIZE=$((64 * 1024 * 1024))
BIG=$(oracle create "$V" --size $BIG_SIZE --password old --pim 1 --seed big) || fail "create big"
run_big() {
  # Empty the output files here, before the fork: the child's own redirections truncate them only once it is
  # scheduled, and until then stop_big would read the previous run's progress lines and signal a shell child that
  # has not exec'd warpvol yet (SIGTERM kills it: exit 143, with the previous run's log in err.txt; SIGINT is
  # ignored there, so that job ran to the end). Only lines of this run can appear in err.txt now.
  : > "$T/out.txt"
  : > "$T/err.txt"
  exec 3< <(printf 'old\n') 4< <(printf 'new\n')
  "$WV" reencrypt "$V" --password-fd 3 --pim 1 --hash sha512 --new-password-fd 4 --new-pim 1 --new-encryption aes \
    --hotzone-size 1M --resilience journal --no-hidden-volume "$@" > "$T/out.txt" 2> "$T/err.txt" &
  PID=$!
  exec 3<&- 4<&-
}
stop_big() {  # signal phase: send the signal on the job's first progress line (phase reencrypt for a fresh job,
              # recover for a resumed one); it must stop at a safe point (exit 6) with the journal kept
  local rc
  for _ in $(seq 2000); do
    grep -q "\"phase\":\"$2\"" "$T/err.txt" && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.01
  done
  kill -"$1" "$PID" 2>/dev/null
  wait "$PID"; rc=$?; PID=""
  [ $rc = 6 ] || fail "SIG$1 on the first progress line ($2): exit $rc (want 6): $(cat "$T/err.txt")"
  grep -q "\"phase\":\"$2\"" "$T/err.txt" || fail "no '$2' progress line before SIG$1: $(cat "$T/err.txt")"
  grep -q "interrupted" "$T/err.txt" || fail "message on SIG$1 ($2): $(cat "$T/err.txt")"
  [ -e "$V.warpvol-reencrypt" ] || fail "no journal after SIG$1 ($2)"
}
run_big --progress-json
stop_big INT reencrypt
for pw in old new; do
  out=$(printf '%s\n' $pw | "$WV" info "$V" --password-stdin --pim 1 --hash sha512 2>&1); rc=$?
  [ $rc = 4 ] || fail "info on a half re-encrypted container ($pw): exit $rc: $out"
  echo "$out" | grep -q "reencrypt --resume" || fail "no pointer to --resume: $out"
  out=$(printf '%s\n' $pw | "$WV" export "$V" "$T/y.raw" --password-stdin --pim 1 --hash sha512 2>&1); rc=$?
  [ $rc = 4 ] || fail "export of a half re-encrypted container ($pw): exit $rc"
  out=$(printf '%s\n' $pw | "$WV" mount "$V" --filesystem none --password-stdin --pim 1 --hash sha512 2>&1); rc=$?
  [ $rc = 4 ] || fail "mount of a half re-encrypted container ($pw): exit $rc: $out"
  echo "$out" | grep -q "reencrypt --resume" || fail "mount: no pointer to --resume: $out"
  echo "$out" | grep -qF "$V" || fail "mount: the message does not name the container: $out"
done
half=$(sha256sum "$V" "$V.warpvol-reencrypt")
out=$(printf 'old\nnew\n' | "$WV" reencrypt "$V" --password-stdin --pim 1 --hash sha512 --new-password-stdin --new-pim 1 \
  --new-encryption aes --no-hidden-volume --dry-run --json 2>&1); rc=$?
[ $rc = 0 ] || fail "--dry-run of a half re-encrypted container: exit $rc: $out"
echo "$out" | grep -q '"resume": true' || fail "--dry-run does not say the job resumes: $out"
[ "$(sha256sum "$V" "$V.warpvol-reencrypt")" = "$half" ] || fail "--dry-run wrote to a half re-encrypted container"
run_big --progress-json   # a resumed job stops the same way
stop_big INT recover
run_big --progress-json
wait "$PID"; rc=$?; PID=""
[ $rc = 0 ] || fail "resume: exit $rc: $(cat "$T/err.txt")"
grep -q "(resumed)" "$T/out.txt" || fail "summary does not say resumed: $(cat "$T/out.txt")"
[ -e "$V.warpvol-reencrypt" ] && fail "journal left behind"
S=$(export_sha "$V" new) || fail "export after resume"
[ "$S" = "$BIG" ] || fail "plaintext after SIGINT + resume differs"
S=$(oracle verify "$V" --password new --pim 1) || fail "independent reader cannot open the result"
[ "$S" = "$BIG" ] || fail "independent reader: plaintext differs"

# ---- SIGTERM: the same safe stop (exit 6), then the same command finishes ----
oracle create "$V" --size $BIG_SIZE --password old --pim 1 --seed big > /dev/null || fail "create"
run_big --progress-json
stop_big TERM reencrypt
run_big --progress-json
stop_big TERM recover
run_big -q --resume   # the explicit form (the SIGINT case above resumed without it)
wait "$PID"; rc=$?; PID=""
[ $rc = 0 ] || fail "resume after SIGTERM: exit $rc: $(cat "$T/err.txt")"
S=$(export_sha "$V" new) || fail "export after SIGTERM + resume"
[ "$S" = "$BIG" ] || fail "plaintext after SIGTERM + resume differs"

# ---- pre-flight: not enough room for the journal (a 1 MiB tmpfs as --journal-dir; needs root) ----
mkdir "$T/small"
if mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null; then
  SMALL="$T/small"
  before=$(sha256sum "$V")
  out=$(printf 'new\n' | "$WV" reencrypt "$V" --password-stdin --pim 1 --hash sha512 --no-hidden-volume \
    --resilience journal --hotzone-size 1M --journal-dir "$T/small" 2>&1); rc=$?
  [ $rc = 3 ] || fail "journal folder without room: exit $rc (want 3): $out"
  echo "$out" | grep -q "not enough free space" || fail "free-space message: $out"
  [ "$(sha256sum "$V")" = "$before" ] || fail "container written although the journal has no room"
  [ -z "$(ls -A "$T/small")" ] || fail "files left in the journal folder: $(ls -A "$T/small")"
  umount "$T/small" && SMALL=""
else
  echo "note: free-space pre-flight not checked (cannot mount a tmpfs: not root)"
fi
echo PASS
