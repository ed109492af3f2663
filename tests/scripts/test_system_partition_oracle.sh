#!/usr/bin/env bash
# An image of ONE system-encrypted partition against the independent oracle: tests/oracle/vc_oracle.py
# (create-system) writes a drive image from the format spec with Botan 2 and prints the partition's plaintext
# sha256; warpvol must export the same bytes from the partition's image cut out of it (--partition-offset, the header
# from the drive's first 63 sectors or from sector 62 alone), from the whole drive, and for an encryption that did not
# finish; a wrong offset inside the key scope must give other bytes, one outside it exit 1. Where FUSE mounts work
# (root, /dev/fuse), `mount --filesystem none` must serve the same bytes, read-only for the unfinished encryption.
# Args: warpvol binary path, source dir.
set -u
BIN=$(realpath "$1")
SRC="$2"
. "$SRC/tests/scripts/lib_oracle.sh"
require_oracle
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warpvol-syspart-XXXXXX")
export WARPVOL_RUNTIME_DIR="$WORK/run" WARPVOL_MEDIA_DIR="$WORK/media"  # this test's own mount registry
trap '"$BIN" dismount --all --force >/dev/null 2>&1; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
CAN_MOUNT=""
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && grep -qw fuse /proc/filesystems && [ -x "$(dirname "$BIN")/warpvol-mountd" ]
then CAN_MOUNT=1; else echo "mount part skipped: needs root, /dev/fuse and warpvol-mountd"; fi
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
START=2048 SECTORS=2048
export_sha() {  # VOLUME [options]: sha256 of warpvol's export, or the exit code as "exit N"
  rm -f "$WORK/out.raw"
  printf 'oracle pw\n' | "$BIN" export "$@" "$WORK/out.raw" --system --hash sha512 --encryption aes \
    --password-stdin 2>"$WORK/err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then echo "exit $rc"; else sha256sum "$WORK/out.raw" | cut -d' ' -f1; fi
}

for ENCRYPTED in $((SECTORS * 512)) $((700 * 512)); do
  WANT=$(oracle create-system drive.img --password "oracle pw" --start $START --sectors $SECTORS \
         --encrypted $ENCRYPTED --seed "s$ENCRYPTED") || { fail "oracle create-system"; continue; }
  dd if=drive.img of=part.img bs=512 skip=$START count=$SECTORS status=none
  dd if=drive.img of=track.img bs=512 count=63 status=none
  dd if=drive.img of=svh_bak bs=512 skip=62 count=1 status=none
  for HDR in track.img svh_bak; do
    GOT=$(export_sha part.img --partition-offset ${START}s --header-file $HDR)
    [ "$GOT" = "$WANT" ] || fail "partition image, header from $HDR, $ENCRYPTED bytes encrypted: $GOT, oracle $WANT"
  done
  GOT=$(export_sha drive.img --partition 1)
  [ "$GOT" = "$WANT" ] || fail "whole drive --partition 1, $ENCRYPTED bytes encrypted: $GOT, oracle $WANT"
  if [ "$ENCRYPTED" -ne $((SECTORS * 512)) ]; then
    export_sha part.img --partition-offset $((START * 512)) --header-file track.img >/dev/null
    grep -q "only $ENCRYPTED bytes are encrypted" "$WORK/err" || fail "unfinished: no notice: $(cat "$WORK/err")"
  fi
  if [ -n "$CAN_MOUNT" ]; then
    DEV=$(printf 'oracle pw\n' | "$BIN" mount part.img --filesystem none --system --partition-offset ${START}s \
          --header-file track.img --hash sha512 --encryption aes --password-stdin 2>"$WORK/err")
    if [ -z "$DEV" ]; then
      fail "mount of the partition image, $ENCRYPTED bytes encrypted: $(cat "$WORK/err")"
    else
      GOT=$(sha256sum "$DEV" | cut -d' ' -f1)
      [ "$GOT" = "$WANT" ] || fail "mounted partition image, $ENCRYPTED bytes encrypted: $GOT, oracle $WANT"
      WRITABLE=0
      dd if=/dev/zero of="$DEV" bs=512 count=1 conv=notrunc status=none 2>/dev/null && WRITABLE=1
      if [ "$ENCRYPTED" -eq $((SECTORS * 512)) ]; then
        [ $WRITABLE = 1 ] || fail "finished system encryption mounted read-only"
      else
        [ $WRITABLE = 0 ] || fail "unfinished system encryption mounted writable"
        grep -q "read-only" "$WORK/err" || fail "unfinished: mount did not say read-only: $(cat "$WORK/err")"
      fi
      "$BIN" dismount --all >/dev/null || fail "dismount"
    fi
  fi
done

# The first half of the partition fits the key scope at other offsets too: only the right one decrypts.
dd if=part.img of=half.img bs=512 count=$((SECTORS / 2)) status=none
export_sha drive.img --partition 1 >/dev/null
RIGHT=$(head -c $((SECTORS / 2 * 512)) "$WORK/out.raw" | sha256sum | cut -d' ' -f1)
GOT=$(export_sha half.img --partition-offset ${START}s --header-file track.img)
[ "$GOT" = "$RIGHT" ] || fail "half image at the right offset: $GOT, want $RIGHT"
GOT=$(export_sha half.img --partition-offset $((START + 1))s --header-file track.img)
case "$GOT" in exit*|"$RIGHT") fail "half image at a wrong offset inside the scope: $GOT" ;; esac
GOT=$(export_sha part.img --partition-offset $((START + 1))s --header-file track.img)
[ "$GOT" = "exit 1" ] || fail "offset outside the key scope: $GOT ($(cat "$WORK/err"))"

[ "$FAILS" -eq 0 ] && echo "system partition image: oracle agrees" && exit 0
exit 1
