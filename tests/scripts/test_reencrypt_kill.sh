#!/bin/bash
# Real process kills during re-encryption: a 256 MiB container is re-encrypted again and again while the CLI is
# killed with SIGKILL at >= 20 random moments; after every kill the same command is run again (it resumes), and
# after every completed job the plaintext (sha256 of `warpvol export`) must equal the original. After each kill,
# opening with the old or the new password must either refuse (exit 4 "half re-encrypted", or 2) or, if it opens,
# export the original plaintext. The last job re-encrypts to AES and an independent reader
# (tests/oracle/vc_oracle.py: hashlib + Botan 2) checks the result.
# Args: warpvol binary, source dir. Exit 77 = skipped. Bounded: at most ~6 minutes (WARPVOL_KILL_BUDGET seconds).
set -u
WV=${1:?warpvol binary}
SRC=${2:?source dir}
. "$SRC/tests/scripts/lib_oracle.sh"
require_oracle
"$WV" help reencrypt > /dev/null 2>&1 || { echo "skip: this warpvol has no reencrypt command"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }

BASE=/tmp
[ -w /dev/shm ] && BASE=/dev/shm
T=$(mktemp -d "$BASE/wv-reenc-kill-XXXXXX")
PID=""
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

SIZE=$((256 * 1024 * 1024))
BUDGET=${WARPVOL_KILL_BUDGET:-360}
V="$T/v.hc"
echo "creating a 256 MiB container with the independent writer..."
ORIG=$(oracle create "$V" --size $SIZE --password pw0 --pim 1 --seed kill) || fail "oracle create"

export_sha() {  # password pim
  rm -f "$T/x.raw"
  printf '%s\n' "$1" | "$WV" export "$V" "$T/x.raw" --password-stdin --pim "$2" --hash sha512 -q || return 1
  sha256sum "$T/x.raw" | cut -d' ' -f1
  rm -f "$T/x.raw"
}
S=$(export_sha pw0 1) || fail "export of the new container"
[ "$S" = "$ORIG" ] || fail "warpvol export differs from the writer's plaintext ($S vs $ORIG)"

# After a kill: each password either refuses as expected or opens a header that exports the original plaintext.
check_open() {  # password pim
  local out rc
  out=$(printf '%s\n' "$1" | "$WV" info "$V" --password-stdin --pim "$2" --hash sha512 2>&1)
  rc=$?
  case $rc in
    0) S=$(export_sha "$1" "$2") || fail "export after info succeeded"
       [ "$S" = "$ORIG" ] || fail "a header opened with '$1' but the data is wrong (sha $S)";;
    2) ;;
    4) echo "$out" | grep -q "half re-encrypted" || fail "unexpected format error: $out";;
    *) fail "info exit $rc: $out";;
  esac
}

# How long one whole job takes on this machine (new master keys, same chain and password): the kills land at
# random moments inside that span, so that nearly every run is killed whatever the machine's speed.
t0=$EPOCHREALTIME
printf 'pw0\n' | "$WV" reencrypt "$V" --password-stdin --pim 1 --hash sha512 --hotzone-size 4M --no-hidden-volume -q \
  > /dev/null 2>&1 || fail "the timing job failed"
JOB_S=$(python3 -c "print(max(0.05, $EPOCHREALTIME - $t0))")
S=$(export_sha pw0 1) || fail "export after the timing job"
[ "$S" = "$ORIG" ] || fail "plaintext changed by the timing job"
echo "one job takes $JOB_S s here"

CHAINS=(serpent twofish-serpent aes-twofish camellia kuznyechik-aes serpent-twofish-aes twofish)
kills=0 job=0 cur=pw0 start=$SECONDS
while :; do
  job=$((job + 1))
  next=pw$job
  chain=${CHAINS[$(( (job - 1) % ${#CHAINS[@]} ))]}
  res=checksum; [ $((RANDOM % 2)) = 1 ] && res=journal
  final=0
  if [ $kills -ge 20 ] || [ $((SECONDS - start)) -ge $BUDGET ]; then chain=aes; final=1; fi
  echo "job $job: $cur -> $next, $chain, $res resilience"
  runs=0
  while :; do
    runs=$((runs + 1))
    exec 3< <(printf '%s\n' "$cur") 4< <(printf '%s\n' "$next")
    "$WV" reencrypt "$V" --password-fd 3 --pim 1 --hash sha512 --new-password-fd 4 --new-pim 1 \
      --new-encryption "$chain" --resilience "$res" --hotzone-size 4M --no-hidden-volume -q \
      > "$T/out.txt" 2> "$T/err.txt" &
    PID=$! t0=$EPOCHREALTIME
    exec 3<&- 4<&-
    if [ $final = 0 ]; then
      # Random moment within a whole job's time (pre-flight with PIM 1 takes a fraction of it).
      sleep "$(python3 -c "import random; print(round(random.uniform(0.05, 0.95) * $JOB_S, 3))")"
      if kill -0 "$PID" 2>/dev/null; then
        kill -9 "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
        PID=""
        kills=$((kills + 1))
        check_open "$cur" 1
        check_open "$next" 1
        if [ $kills -ge 20 ] || [ $((SECONDS - start)) -ge $BUDGET ] || [ $runs -ge 4 ]; then final=1; fi
        continue
      fi
    fi
    wait "$PID"; rc=$?; PID=""
    if [ $final = 0 ] && [ $runs = 1 ] && [ $rc = 0 ]; then
      # A whole job finished before its kill: the machine's load changed since the timing job (a parallel test
      # suite comes and goes), so the kills aim within this run's time from now on (its sleep: the job ended in it).
      JOB_S=$(python3 -c "print(max(0.05, $EPOCHREALTIME - $t0))")
    fi
    if [ $rc = 2 ] && [ $runs -gt 1 ] && [ ! -e "$V.warpvol-reencrypt" ]; then
      # The kill landed after the last step (F3: journal removed, final headers written) but before the process
      # exited: the job is done, so the old password no longer opens the volume. The checks after the job (no
      # journal, the new password exports the original plaintext) confirm that nothing was lost.
      echo "job $job: the killed run had already finished (journal gone, old password refused)"
      break
    fi
    [ $rc = 0 ] || fail "job $job run $runs exit $rc: $(cat "$T/err.txt")"
    break
  done
  [ -e "$V.warpvol-reencrypt" ] && fail "journal left behind after job $job"
  S=$(export_sha "$next" 1) || fail "export after job $job"
  [ "$S" = "$ORIG" ] || fail "plaintext changed by job $job ($S vs $ORIG)"
  cur=$next
  if [ "$chain" = aes ]; then break; fi
done
echo "independent check of the final AES container..."
S=$(oracle verify "$V" --password "$cur" --pim 1) || fail "the oracle cannot open the result"
[ "$S" = "$ORIG" ] || fail "oracle plaintext differs ($S vs $ORIG)"
echo "kills: $kills, jobs: $job, time: $((SECONDS - start)) s"
[ $kills -ge 20 ] || fail "only $kills kills happened within the time budget (need 20)"
echo PASS
