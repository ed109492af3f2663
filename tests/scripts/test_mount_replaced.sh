#!/usr/bin/env bash
# A mounted container must not be replaced under its mount: create --force and import --force onto it are exit 5
# ("in use", the FUSE process's flock, as reencrypt already refuses) and leave it as it was; a container replaced
# by other means (cp over it) makes dismount warn that what was written through the mount is lost; a mount that
# starts while create --force is still writing its replacement is refused (exit 5) and the container kept.
# Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped (no root or /dev/fuse).
source "$(dirname "$0")/lib_mount.sh"
need_mount_env

VOL="$TMP/vol.hc"
printf 'pw\n' | "$WARPVOL" create "$VOL" --size 1M --quick --pim 1 --password-stdin --non-interactive >/dev/null 2>&1
SHA=$(sha256sum <"$VOL" | cut -d' ' -f1)
DEV=$(printf 'pw\n' | "$WARPVOL" mount "$VOL" --filesystem none --pim 1 --password-stdin)
check "mounted" test -f "$DEV"

set +e
OUT=$(printf 'new\n' | "$WARPVOL" create "$VOL" --size 1M --quick --pim 1 --password-stdin --force --non-interactive 2>&1)
RC=$?
set -e
check "create --force onto the mounted container: exit 5 (was $RC: $OUT)" test "$RC" = 5
check "create --force: the message says it is in use" grep -q "in use" <<<"$OUT"
head -c 65536 /dev/urandom >"$TMP/raw.img"
set +e
OUT=$(printf 'new\n' | "$WARPVOL" import "$TMP/raw.img" "$VOL" --pim 1 --password-stdin --force --non-interactive 2>&1)
RC=$?
set -e
check "import --force onto the mounted container: exit 5 (was $RC: $OUT)" test "$RC" = 5
check "the container is unchanged" test "$(sha256sum <"$VOL" | cut -d' ' -f1)" = "$SHA"
check "the same inode is still mounted" test "$("$WARPVOL" list --json | jget 'j[0]["fuse_alive"]')" = true

# Replaced by another program: cp to a new file and rename it over the container.
cp "$VOL" "$TMP/copy.hc"
mv "$TMP/copy.hc" "$VOL"
OUT=$("$WARPVOL" dismount "$VOL" 2>&1 || true)
check "dismount after the container was replaced warns (got: $OUT)" grep -q "replaced" <<<"$OUT"
check "and the slot is gone" test "$("$WARPVOL" list --json)" = "[]"

# A mount that starts while create --force is replacing the container (here: in its long KDF, after its first
# write): create holds the container lock from before that write until its rename, so the mount is refused.
SHA=$(sha256sum <"$VOL" | cut -d' ' -f1)
printf 'new\n' | "$WARPVOL" create "$VOL" --size 1M --quick --pim 100000 --password-stdin --force \
  --non-interactive >/dev/null 2>&1 &
CREATE=$!
BG_PIDS=$CREATE
writing() { ls -A "$TMP" | grep -q '^\.vol\.hc\.warpvol-'; }
for _ in $(seq 1000); do writing && break; sleep 0.02; done
check "create --force is writing its temporary file" writing
set +e
OUT=$(printf 'pw\n' | "$WARPVOL" mount "$VOL" --filesystem none --pim 1 --password-stdin 2>&1)
RC=$?
set -e
check "mount during create --force: exit 5 (was $RC: $OUT)" test "$RC" = 5
check "mount during create --force: the message says it is in use" grep -q "in use" <<<"$OUT"
kill -TERM "$CREATE"
set +e
wait "$CREATE"
RC=$?
set -e
BG_PIDS=
check "create --force stopped by SIGTERM: exit 6 (was $RC)" test "$RC" = 6
check "the container is unchanged" test "$(sha256sum <"$VOL" | cut -d' ' -f1)" = "$SHA"
check "nothing else is left in the folder" test -z "$(ls -A "$TMP" | grep warpvol- || true)"
finish
