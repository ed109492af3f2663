#!/bin/bash
# `warpvol reencrypt` end to end: a batch of 5 containers with one wrong password (credentials file; mode 0600
# enforced) fails up front and writes nothing anywhere; --skip-bad re-encrypts the other four; --progress-json
# lines are cryptsetup-style (numbers as strings); --resume-only without a journal is refused; SIGINT stops at a
# safe point with exit 6, the container is refused by info/export/mount with a pointer to --resume, and running the same
# command again finishes it; the result is checked by an independent reader (test_reencrypt_oracle.py); SIGTERM
# stops the same way; a journal folder without room is refused before anything is written (as root: 1 MiB tmpfs).
# Args: warpvol binary, source dir. Exit 77 = skipped.
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
ORACLE="$SRC/tests/scripts/test_reencrypt_oracle.py"
python3 -c 'import cryptography.hazmat.primitives.ciphers' 2>/dev/null || { echo "skip: python3-cryptography missing"; exit 77; }
"$WV" help reencrypt > /dev/null 2>&1 || { echo "skip: this warpvol has no reencrypt command"; exit 77; }
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
  ORIG[$i]=$(python3 "$ORACLE" create "$T/b$i.hc" --size $((2 * 1024 * 1024)) --password "pw$i" --pim 1 --seed "b$i") \
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
grep -q "b4.hc: failed" "$T/sum.txt" || fail "summary: $(cat "$T/sum.txt")"
[ "$(grep -c ": skipped" "$T/sum.txt")" = 4 ] || fail "summary: $(cat "$T/sum.txt")"

"$WV" reencrypt --credentials-file "$C" --hash sha512 --new-encryption serpent --jobs 2 --skip-bad --progress-json \
  > "$T/sum.txt" 2> "$T/progress.txt"; rc=$?
[ $rc = 2 ] || fail "--skip-bad with one bad container: exit $rc (want 2, not all succeeded)"
[ "$(grep -c ": done" "$T/sum.txt")" = 4 ] || fail "summary: $(cat "$T/sum.txt")"
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
BIG=$(python3 "$ORACLE" create "$V" --size $((192 * 1024 * 1024)) --password old --pim 1 --seed big) || fail "create big"
run_big() {
  exec 3< <(printf 'old\n') 4< <(printf 'new\n')
  "$WV" reencrypt "$V" --password-fd 3 --pim 1 --hash sha512 --new-password-fd 4 --new-pim 1 --new-encryption aes \
    --hotzone-size 1M --resilience journal --no-hidden-volume "$@" > "$T/out.txt" 2> "$T/err.txt" &
  PID=$!
  exec 3<&- 4<&-
}
interrupt_big() {  # signal: start a job on the fresh container and stop it with the signal (exit 6 wanted)
  local interrupted=0 attempt rc
  # The container is 192 MiB so that the job is still running 0.6 s in on an idle machine (at 96 MiB a whole
  # AES job could finish first on all three attempts).
  for attempt in 1 2 3; do
    run_big -q
    sleep 0.6
    kill -"$1" "$PID" 2>/dev/null
    wait "$PID"; rc=$?; PID=""
    if [ $rc = 6 ]; then interrupted=1; break; fi
    [ $rc = 0 ] || fail "SIG$1 run: exit $rc: $(cat "$T/err.txt")"
    # finished before the signal: start over from the old password
    python3 "$ORACLE" create "$V" --size $((192 * 1024 * 1024)) --password old --pim 1 --seed big > /dev/null
  done
  [ $interrupted = 1 ] || fail "could not interrupt a running re-encryption with SIG$1"
  grep -q "interrupted" "$T/err.txt" || fail "message on SIG$1: $(cat "$T/err.txt")"
  [ -e "$V.warpvol-reencrypt" ] || fail "no journal after SIG$1"
}
interrupt_big INT
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
run_big --progress-json
wait "$PID"; rc=$?; PID=""
[ $rc = 0 ] || fail "resume: exit $rc: $(cat "$T/err.txt")"
grep -q "(resumed)" "$T/out.txt" || fail "summary does not say resumed: $(cat "$T/out.txt")"
[ -e "$V.warpvol-reencrypt" ] && fail "journal left behind"
S=$(export_sha "$V" new) || fail "export after resume"
[ "$S" = "$BIG" ] || fail "plaintext after SIGINT + resume differs"
S=$(python3 "$ORACLE" verify "$V" --password new --pim 1) || fail "independent reader cannot open the result"
[ "$S" = "$BIG" ] || fail "independent reader: plaintext differs"

# ---- SIGTERM: the same safe stop (exit 6), then the same command finishes ----
python3 "$ORACLE" create "$V" --size $((192 * 1024 * 1024)) --password old --pim 1 --seed big > /dev/null || fail "create"
interrupt_big TERM
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
