#!/usr/bin/env bash
# Hidden-volume protection on a copy of VeraCrypt's outer-hidden.hc: the outer volume mounted with
# --protect-hidden takes writes outside the hidden range, refuses the first write that would land in it (EIO) and
# every write after it, `list` shows the protection triggered, and the hidden volume's plaintext is unchanged
# (VeraCrypt's hash). Also: a wrong protection password, and --protect-hidden with the hidden password itself.
# Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped.
source "$(dirname "$0")/lib_mount.sh"
need_mount_env

OUTER_PW=$(manifest outer-hidden.hc outer password)
HIDDEN_PW=$(manifest outer-hidden.hc hidden password)
HIDDEN_SHA=$(manifest outer-hidden.hc hidden decrypted_data_area_sha256)
HIDDEN_OFF=$(manifest outer-hidden.hc hidden data_area_offset)
OUTER_OFF=$(manifest outer-hidden.hc outer data_area_offset)
VOL="$TMP/outer-hidden.hc"
cp "$VEC/outer-hidden.hc" "$VOL"
N=(--hash sha512 --encryption aes)

mount_protected() {
  printf '%s\n%s\n' "$OUTER_PW" "$1" | "$WARPVOL" mount "$VOL" --filesystem none "${N[@]}" --password-stdin \
    --protect-hidden --protect-hidden-password-stdin
}

# Wrong protection password: refused (auth), nothing left mounted.
mount_protected "not-the-hidden-password" >/dev/null 2>&1 && rc=0 || rc=$?
check "wrong protection password: exit 2" test "$rc" = 2
check "wrong protection password: nothing mounted" test "$("$WARPVOL" list --json)" = "[]"

# The hidden password given as the volume password together with --protect-hidden: refused.
printf '%s\n%s\n' "$HIDDEN_PW" "$HIDDEN_PW" | "$WARPVOL" mount "$VOL" --filesystem none "${N[@]}" --password-stdin \
  --protect-hidden --protect-hidden-password-stdin >/dev/null 2>&1 && rc=0 || rc=$?
check "--protect-hidden with the hidden volume's own password: usage error" test "$rc" = 1

DEV=$(mount_protected "$HIDDEN_PW")
check "outer volume mounted with protection" test -f "$DEV"
L=$("$WARPVOL" list --json)
check "list: protection on, not triggered" \
  test "$(jget '[j[0]["hidden_protection"], j[0]["hidden_protection_triggered"]]' <<<"$L")" = "[true, false]"
check "list: protected range is the hidden volume's" \
  test "$(jget 'j[0]["protected_range"][0]' <<<"$L")" = "$HIDDEN_OFF"

# Below the hidden range: allowed.
check "a write outside the hidden range succeeds" \
  dd if=/dev/urandom of="$DEV" bs=4096 count=4 seek=1 conv=notrunc,fsync oflag=direct status=none
# Into the hidden range: the plaintext offset of the hidden data area.
PLAIN_HIDDEN=$(( (HIDDEN_OFF - OUTER_OFF) / 4096 ))
check "a write into the hidden range fails" \
  bash -c "! dd if=/dev/zero of='$DEV' bs=4096 count=1 seek=$PLAIN_HIDDEN conv=notrunc,fsync oflag=direct status=none 2>/dev/null"
L=$("$WARPVOL" list --json)
check "list: protection triggered" test "$(jget 'j[0]["hidden_protection_triggered"]' <<<"$L")" = "true"
check "list (text) says TRIGGERED" bash -c "'$WARPVOL' list | grep -q TRIGGERED"
check "after the trigger every write fails, also far from the hidden volume" \
  bash -c "! dd if=/dev/zero of='$DEV' bs=4096 count=1 seek=0 conv=notrunc,fsync oflag=direct status=none 2>/dev/null"
check "reads still work" dd if="$DEV" of=/dev/null bs=64k status=none
check "list warns on stderr about the triggered protection" \
  bash -c "'$WARPVOL' list 2>&1 >/dev/null | grep -q 'WARNING: hidden volume protection was triggered'"
"$WARPVOL" dismount "$VOL" --json >"$TMP/dismount.json" 2>"$TMP/dismount.err" && rc=0 || rc=$?
check "dismount after a trigger succeeds (exit 0)" test "$rc" = 0
check "dismount warns that protection was triggered" grep -q 'WARNING: hidden volume protection was TRIGGERED' "$TMP/dismount.err"
check "dismount --json: hidden_protection_triggered is true" \
  test "$(jget 'j[0]["hidden_protection_triggered"]' <"$TMP/dismount.json")" = "true"

# The hidden volume is intact: mount it (read-only) and hash its plaintext.
HDEV=$(printf '%s\n' "$HIDDEN_PW" | "$WARPVOL" mount "$VOL" --filesystem none --read-only --hidden "${N[@]}" --password-stdin)
check "hidden volume plaintext unchanged (VeraCrypt's sha256)" test "$(sha256sum <"$HDEV" | cut -d' ' -f1)" = "$HIDDEN_SHA"
check "list: hidden volume type" test "$("$WARPVOL" list --json | jget 'j[0]["volume_type"]')" = "hidden"
"$WARPVOL" dismount --all --json >"$TMP/dismount2.json" 2>"$TMP/dismount2.err" && rc=0 || rc=$?
check "dismount --all" test "$rc" = 0
check "dismount --json without protection: hidden_protection_triggered false" \
  test "$(jget 'j[0]["hidden_protection_triggered"]' <"$TMP/dismount2.json")" = "false"
check "no warning without a trigger" bash -c "! grep -q TRIGGERED '$TMP/dismount2.err'"
check "no leaks" no_leaks
finish
