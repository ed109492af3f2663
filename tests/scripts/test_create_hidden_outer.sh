#!/usr/bin/env bash
# create --type hidden inside an outer volume holding files, for each outer filesystem warpvol analyses (FAT, exFAT,
# NTFS, ext4): without outer credentials and without a terminal it refuses and names --trust-size; a hidden volume
# that would overwrite the outer files is refused (naming the filesystem and the largest size that fits); a wrong
# outer password is named as the outer one; a hidden volume that fits is created and formatted (FAT by default),
# and afterwards the outer files read back unchanged through a mount. Also: create's default filesystem is FAT and
# the summary says so; a hidden create prints no fill rate.
# Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped (no root, /dev/fuse or loop devices).
source "$(dirname "$0")/lib_mount.sh"
need_mount_env
need_loop

OPW="outer-password-for-the-test"
HPW="hidden-password-for-the-test"
N=(--pim 1 --hash sha512)

# Default filesystem: FAT, said in the summary; the volume mounts with the filesystem detected.
printf '%s\n' "$OPW" | "$WARPVOL" create "$TMP/default.hc" --size 8M --quick "${N[@]}" --password-stdin \
  >"$TMP/default.out" 2>"$TMP/default.err" && rc=0 || rc=$?
check "create with defaults succeeds" test "$rc" = 0
check "create says it made FAT" grep -q '^Filesystem: *FAT (made by mkfs' "$TMP/default.out"
MP=$(printf '%s\n' "$OPW" | "$WARPVOL" mount "$TMP/default.hc" "${N[@]}" --password-stdin --json | jget 'j["mount_point"]')
check "the default volume mounts with its filesystem detected" test -d "$MP"
check "list: vfat" bash -c "'$WARPVOL' list --json | grep -q '\"filesystem\": \"vfat\"'"
"$WARPVOL" dismount --all >/dev/null

for fs in fat exfat ntfs ext4; do
  V="$TMP/outer-$fs.hc"
  printf '%s\n' "$OPW" | "$WARPVOL" create "$V" --size 64M --quick --filesystem "$fs" "${N[@]}" --password-stdin \
    >/dev/null 2>"$TMP/err" || { fail "$fs: outer volume created"; cat "$TMP/err"; continue; }
  RW=()
  [ "$fs" = fat ] && RW=(--fs-options rw+)  # fusefat writes only when asked (where the kernel has no vfat)
  MP=$(printf '%s\n' "$OPW" | "$WARPVOL" mount "$V" "${N[@]}" --password-stdin "${RW[@]}" --json | jget 'j["mount_point"]')
  head -c $((20 * 1024 * 1024)) /dev/urandom >"$MP/big.bin"
  echo "small" >"$MP/small.txt"
  SUM=$(sha256sum <"$MP/big.bin")
  "$WARPVOL" dismount "$V" >/dev/null

  "$WARPVOL" create "$V" --type hidden --size 4M "${N[@]}" --password-stdin </dev/null >/dev/null 2>"$TMP/err" \
    && rc=0 || rc=$?
  check "$fs: hidden without outer credentials and no terminal: exit 1" test "$rc" = 1
  check "$fs: ... the message names --trust-size" grep -q -- "--trust-size" "$TMP/err"

  printf '%s\n%s\n' "$OPW" "$HPW" | "$WARPVOL" create "$V" --type hidden --size 48M "${N[@]}" --password-stdin \
    --outer-password-stdin --outer-pim 1 >/dev/null 2>"$TMP/err" && rc=0 || rc=$?
  check "$fs: a hidden volume over the outer files is refused (exit 1)" test "$rc" = 1
  check "$fs: ... naming the largest size that fits" grep -q "largest --size that fits" "$TMP/err"

  if [ "$fs" = fat ]; then
    printf '%s\n%s\n' "$OPW" "$OPW" | "$WARPVOL" create "$V" --type hidden --size 4M "${N[@]}" --password-stdin \
      --outer-password-stdin --outer-pim 1 >/dev/null 2>"$TMP/err" && rc=0 || rc=$?
    check "$fs: the outer password as the hidden one is refused (exit 1)" test "$rc" = 1
    check "$fs: ... saying they must differ" grep -q "must differ" "$TMP/err"
  fi

  printf '%s\n%s\n' "wrong-outer" "$HPW" | "$WARPVOL" create "$V" --type hidden --size 4M "${N[@]}" --password-stdin \
    --outer-password-stdin --outer-pim 1 >/dev/null 2>"$TMP/err" && rc=0 || rc=$?
  check "$fs: wrong outer password: exit 2" test "$rc" = 2
  check "$fs: ... the message says it is the OUTER volume's password" grep -q "OUTER volume's password" "$TMP/err"

  printf '%s\n%s\n' "$OPW" "$HPW" | "$WARPVOL" create "$V" --type hidden --size 4M "${N[@]}" --password-stdin \
    --outer-password-stdin --outer-pim 1 --progress-json >"$TMP/out" 2>"$TMP/err" && rc=0 || rc=$?
  check "$fs: a hidden volume that fits is created" test "$rc" = 0
  [ "$rc" = 0 ] || cat "$TMP/err"
  check "$fs: ... the outer filesystem was analysed" grep -q "outer filesystem: " "$TMP/err"
  check "$fs: ... no fill progress (nothing is filled)" bash -c "! grep -q '\"phase\":\"fill\"' '$TMP/err'"
  check "$fs: ... formatted FAT" grep -q '^Filesystem: *FAT' "$TMP/out"

  MP=$(printf '%s\n' "$OPW" | "$WARPVOL" mount "$V" "${N[@]}" --password-stdin --read-only --json | jget 'j["mount_point"]')
  check "$fs: the outer files are unchanged" test "$(sha256sum <"$MP/big.bin")" = "$SUM"
  check "$fs: ... the small one too" test "$(cat "$MP/small.txt")" = small
  "$WARPVOL" dismount "$V" >/dev/null
  MP=$(printf '%s\n' "$HPW" | "$WARPVOL" mount "$V" "${N[@]}" --password-stdin --hidden --json | jget 'j["mount_point"]')
  check "$fs: the hidden volume mounts with its FAT" test -d "$MP"
  "$WARPVOL" dismount "$V" >/dev/null
  rm -f "$V"
done

check "no leaks" leaks
finish
