# Shared by tests/scripts/test_mount_*.sh (sourced, not a test itself). Each test gets: $WARPVOL, $SRC, $VEC (the
# VeraCrypt-made containers), $TMP (removed at exit), an isolated registry (WARPVOL_RUNTIME_DIR under $TMP, so
# `dismount --all` only touches this test's mounts), and a cleanup that dismounts everything and then checks that
# no mount, FUSE process or loop device of this test is left behind.
set -euo pipefail

WARPVOL=${1:?usage: $0 WARPVOL_BINARY SOURCE_DIR}
SRC=${2:?usage: $0 WARPVOL_BINARY SOURCE_DIR}
VEC="$SRC/testvectors/veracrypt"
PASSED=0
FAILED=0

skip() {
  echo "SKIP: $*"
  exit 77
}
# A missing package or part of the build: a skip on a developer's machine, a failure where scripts/test.sh
# installed everything (it sets WARPVOL_MISSING_PACKAGE_EXIT=1).
skip_missing() {
  echo "SKIP: $*"
  exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"
}
need_mount_env() {
  [ "$(id -u)" = 0 ] || skip "needs root (FUSE mount, loop devices, mount(2))"
  [ -c /dev/fuse ] || skip "no /dev/fuse on this machine"
  grep -qw fuse /proc/filesystems || skip "the kernel has no fuse filesystem"
  [ -x "$(dirname "$WARPVOL")/warpvol-mountd" ] || [ -n "${WARPVOL_MOUNTD:-}" ] || skip_missing "warpvol-mountd not built"
}
need_loop() {
  [ -c /dev/loop-control ] || skip "no loop devices (/dev/loop-control missing)"
}

TMP=$(mktemp -d /tmp/warpvol-mount-test.XXXXXX)
export WARPVOL_RUNTIME_DIR="$TMP/run"
export WARPVOL_MEDIA_DIR="$TMP/media"

leaks() {
  # Mounts under $TMP, loop devices over files under $TMP, FUSE processes serving $TMP.
  local found=0
  if grep -q " $TMP" /proc/self/mountinfo; then
    echo "leaked mounts:"; grep " $TMP" /proc/self/mountinfo; found=1
  fi
  if losetup -a 2>/dev/null | grep -q "$TMP"; then
    echo "leaked loop devices:"; losetup -a | grep "$TMP"; found=1
  fi
  if pgrep -f "warpvol-mountd" >/dev/null 2>&1; then
    for p in $(pgrep -f warpvol-mountd); do
      if ls -l /proc/$p/fd 2>/dev/null | grep -q "$TMP"; then echo "leaked FUSE process $p"; found=1; fi
    done
  fi
  return $found
}

cleanup() {
  local rc=$?
  set +e
  [ -n "${BG_PIDS:-}" ] && kill $BG_PIDS 2>/dev/null && wait $BG_PIDS 2>/dev/null
  "$WARPVOL" dismount --all --force >/dev/null 2>&1
  if ! leaks; then
    echo "FAIL: resources leaked; removing them by force"
    grep " $TMP" /proc/self/mountinfo | awk '{print $5}' | sort -r | while read -r m; do umount -l "$m"; done
    losetup -a | grep "$TMP" | cut -d: -f1 | while read -r d; do losetup -d "$d"; done
    rc=1
  fi
  rm -rf "$TMP"
  exit $rc
}
trap cleanup EXIT

ok() {
  PASSED=$((PASSED + 1))
  echo "ok - $*"
}
fail() {
  FAILED=$((FAILED + 1))
  echo "FAIL - $*"
}
check() {  # check "description" command...
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
finish() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" = 0 ]
}

# manifest FILE CASE FIELD [SUBFIELD...]: a value from MANIFEST.json.
manifest() {
  python3 - "$VEC/MANIFEST.json" "$@" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
f = [e for e in m["files"] if e["file"] == sys.argv[2] and e["case"] == sys.argv[3]][0]
v = f
for k in sys.argv[4:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
sys.stdout.write(v if isinstance(v, str) else json.dumps(v))
EOF
}

# jq-less JSON access: jget 'expression on j' < json
jget() {
  python3 -c "import json,sys; j=json.load(sys.stdin); v=($1); print(v if isinstance(v,str) else json.dumps(v))"
}

no_leaks() { leaks >/dev/null; }

# A container with an empty (or unknown) data area for the ext4 tests, in $1. Sets CREDS (array of credential
# options) and PW. Uses $WARPVOL_TEST_CONTAINER when the caller made one (test_mount_e2e.cpp does, through core's
# header writer), else `warpvol create`; skips when neither exists.
make_container() {
  local out=$1 size=$2
  if [ -n "${WARPVOL_TEST_CONTAINER:-}" ]; then
    cp --sparse=always "$WARPVOL_TEST_CONTAINER" "$out"
    PW=$WARPVOL_TEST_PASSWORD
    read -r -a CREDS <<<"${WARPVOL_TEST_CREDS:-}"
    return 0
  fi
  if ! "$WARPVOL" create --help >/dev/null 2>&1; then
    skip_missing "no container: 'warpvol create' is not available and WARPVOL_TEST_CONTAINER is not set"
  fi
  PW="mount-test-password"
  CREDS=(--hash sha512 --pim 1)
  printf '%s\n' "$PW" | "$WARPVOL" create "$out" --size "$size" --encryption aes --hash sha512 --pim 1 \
    --password-stdin --quick --filesystem none >/dev/null
}

# wv_mount ARGS...: warpvol mount with the password on stdin (PW), credentials CREDS.
wv_mount() {
  printf '%s\n' "$PW" | "$WARPVOL" mount "$@" "${CREDS[@]}" --password-stdin
}
