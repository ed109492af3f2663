#!/usr/bin/env bash
# VeraCrypt's fat.hc through warpvol's FUSE plaintext device: the whole plaintext matches VeraCrypt's hash,
# HELLO.TXT has the manifest's content (mtools on the plaintext device: this kernel may lack vfat), a file written
# with mtools survives dismount and remount, a read-only mount refuses writes, and (when the kernel has vfat or
# fusefat is installed) the filesystem mounts and HELLO.TXT reads back through it.
# Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped (no root, /dev/fuse or loop devices).
source "$(dirname "$0")/lib_mount.sh"
need_mount_env
command -v mtype >/dev/null || skip_missing "mtools not installed"

PW=$(manifest fat.hc fat password)
CREDS=(--hash sha512 --encryption aes)
VOL="$TMP/fat.hc"
cp "$VEC/fat.hc" "$VOL"
EXPECT_HELLO=$(manifest fat.hc fat files 0 content)
EXPECT_SHA=$(manifest fat.hc fat decrypted_data_area_sha256)
export MTOOLS_SKIP_CHECK=1

# 1. --filesystem none: the plaintext device.
DEV=$(wv_mount "$VOL" --filesystem none)
check "mount --filesystem none prints the plaintext device" test -f "$DEV"
check "the plaintext device has the data area's size" test "$(stat -c %s "$DEV")" = "$(manifest fat.hc fat decrypted_data_area_size)"
check "the whole plaintext matches VeraCrypt's sha256" test "$(sha256sum <"$DEV" | cut -d' ' -f1)" = "$EXPECT_SHA"
check "HELLO.TXT has the manifest content (mtools on the plaintext device)" \
  test "$(mtype -i "$DEV" ::HELLO.TXT)" = "$EXPECT_HELLO"
LIST=$("$WARPVOL" list --json)
check "list shows the slot with its plaintext device" test "$(jget 'j[0]["plaintext_device"]' <<<"$LIST")" = "$DEV"
check "list: filesystem none, no loop device, FUSE alive" \
  test "$(jget '[j[0]["filesystem"], j[0]["loop_device"], j[0]["fuse_alive"], j[0]["chain"]]' <<<"$LIST")" = '["none", "", true, "AES"]'
check "mounting the same container twice is refused (busy, exit 5)" \
  bash -c "printf '%s\n' '$PW' | '$WARPVOL' mount '$VOL' --filesystem none --password-stdin >/dev/null 2>&1; test \$? = 5"

# 2. Write through the plaintext device, dismount (flush), remount read-only: the file is there.
printf 'written through warpvol\n' >"$TMP/NEW.TXT"
check "mcopy onto the plaintext device" mcopy -i "$DEV" "$TMP/NEW.TXT" ::NEW.TXT
check "dismount by container path" "$WARPVOL" dismount "$VOL"
check "after dismount: nothing mounted, no FUSE process, registry empty" \
  bash -c "no_leaks() { ! grep -q ' $TMP' /proc/self/mountinfo; }; no_leaks && test \"\$('$WARPVOL' list --json)\" = '[]'"
check "the container changed" test "$(sha256sum <"$VOL" | cut -d' ' -f1)" != "$(manifest fat.hc fat container_sha256)"
DEV=$(wv_mount "$VOL" --filesystem none --read-only)
check "NEW.TXT survived the remount" test "$(mtype -i "$DEV" ::NEW.TXT)" = "written through warpvol"
check "HELLO.TXT is still intact" test "$(mtype -i "$DEV" ::HELLO.TXT)" = "$EXPECT_HELLO"
check "read-only: writing the plaintext device fails" \
  bash -c "! dd if=/dev/zero of='$DEV' bs=512 count=1 conv=notrunc status=none 2>/dev/null"
check "read-only: list says so" test "$("$WARPVOL" list --json | jget 'j[0]["read_only"]')" = "true"
check "dismount --slot" "$WARPVOL" dismount --slot "$("$WARPVOL" list --json | jget 'j[0]["slot"]')"

# 3. The filesystem itself, when this machine can mount FAT (kernel vfat or fusefat).
if grep -qw vfat /proc/filesystems || command -v fusefat >/dev/null; then
  need_loop
  MP="$TMP/mnt"
  OUT=$(wv_mount "$VOL" "$MP" --read-only)
  echo "$OUT"
  check "filesystem auto-detected as vfat" test "$("$WARPVOL" list --json | jget 'j[0]["filesystem"]')" = "vfat"
  check "HELLO.TXT through the mounted filesystem" test "$(cat "$MP/HELLO.TXT")" = "$EXPECT_HELLO"
  check "NEW.TXT through the mounted filesystem" test "$(cat "$MP/NEW.TXT")" = "written through warpvol"
  check "dismount by mount point" "$WARPVOL" dismount "$MP"
  check "the mount point folder mount created is gone" test ! -e "$MP"
  # A writable volume whose filesystem is mounted read-only (fusefat without rw+, or --fs-options ro): list reports
  # what the mount really is, from mountinfo.
  wv_mount "$VOL" "$MP" --fs-options ro >/dev/null
  L=$("$WARPVOL" list --json)
  check "filesystem mounted read-only on a writable volume: list --json read_only true" \
    test "$(jget '[j[0]["read_only"], j[0]["volume_read_only"], j[0]["filesystem_read_only"]]' <<<"$L")" = "[true, false, true]"
  check "list (text) says read-only: yes" bash -c "'$WARPVOL' list | grep -q 'read-only: *yes: the filesystem is mounted read-only'"
  check "dismount" "$WARPVOL" dismount "$MP"
else
  echo "# no vfat driver and no fusefat: filesystem mount of fat.hc not tried"
fi

# 4. Errors leave nothing behind.
printf 'wrong\n' | "$WARPVOL" mount "$VOL" --filesystem none --password-stdin "${CREDS[@]}" >/dev/null 2>&1 && rc=0 || rc=$?
check "wrong password: exit 2" test "$rc" = 2
check "wrong password: registry empty" test "$("$WARPVOL" list --json)" = "[]"
"$WARPVOL" dismount "$VOL" >/dev/null 2>&1 && rc=0 || rc=$?
check "dismount of something not mounted: usage error" test "$rc" = 1
check "no leaks" no_leaks
finish
