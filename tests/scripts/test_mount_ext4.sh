#!/usr/bin/env bash
# ext4 end to end: a container (warpvol create, or $WARPVOL_TEST_CONTAINER) gets an ext4 filesystem (create
# --filesystem ext4 when create has it, else mount --filesystem none + mkfs.ext4 on the plaintext device), mounts,
# takes several MiB of files written at random sizes and offsets, dismounts (flush), mounts again with the same
# sha256 of every file, mounts read-only where writes fail, and a busy mount point gives a clear error that --force
# overcomes. Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped.
source "$(dirname "$0")/lib_mount.sh"
need_mount_env
need_loop
command -v mkfs.ext4 >/dev/null || skip_missing "mkfs.ext4 not installed (e2fsprogs)"

VOL="$TMP/ext4.hc"
MP="$TMP/mnt"
make_container "$VOL" 64M

if [ -z "${WARPVOL_TEST_CONTAINER:-}" ] && "$WARPVOL" create --help 2>/dev/null | grep -q -- "--filesystem"; then
  rm -f "$VOL"
  check "create --filesystem ext4" bash -c "printf '%s\n' '$PW' | '$WARPVOL' create '$VOL' --size 64M --encryption aes \
    --hash sha512 --pim 1 --password-stdin --quick --filesystem ext4 >/dev/null"
else
  DEV=$(wv_mount "$VOL" --filesystem none)
  check "mkfs.ext4 on the plaintext device" mkfs.ext4 -q -F -E nodiscard "$DEV"
  check "dismount after mkfs" "$WARPVOL" dismount "$VOL"
fi

OUT=$(wv_mount "$VOL" "$MP")
echo "$OUT"
L=$("$WARPVOL" list --json)
check "mounted ext4 on a loop device" \
  test "$(jget '[j[0]["filesystem"], j[0]["loop_device"].startswith("/dev/loop"), j[0]["filesystem_mounted"]]' <<<"$L")" = '["ext4", true, true]'
LOOP=$(jget 'j[0]["loop_device"]' <<<"$L")
check "the loop device is backed by the plaintext device" \
  test "$(cat /sys/block/$(basename "$LOOP")/loop/backing_file)" = "$(jget 'j[0]["plaintext_device"]' <<<"$L")"

# Several MiB of files: random sizes, some rewritten in place at random offsets.
python3 - "$MP" <<'EOF'
import os, random, sys
mp = sys.argv[1]
rnd = random.Random(1234)
os.makedirs(os.path.join(mp, "d1", "d2"), exist_ok=True)
total = 0
for i in range(24):
    name = os.path.join(mp, "d1" if i % 3 else "d1/d2", f"f{i}.bin")
    size = rnd.choice([1, 511, 513, 4096, 65537, 300000, 1 << 20, 3 * (1 << 20) + 17])
    with open(name, "wb") as f:
        f.write(os.urandom(size))
    total += size
    if size > 4096:
        with open(name, "r+b") as f:
            for _ in range(5):
                off = rnd.randrange(0, size)
                f.seek(off)
                f.write(os.urandom(min(rnd.randrange(1, 70000), size - off)))
print(f"wrote {total} bytes in 24 files")
EOF
(cd "$MP" && find . -type f | sort | xargs sha256sum) >"$TMP/sums"
check "files written (several MiB)" test "$(du -sk "$MP" | cut -f1)" -gt 4000
check "dismount by mount point" "$WARPVOL" dismount "$MP"
check "loop device detached" bash -c "test -z \"\$(cat /sys/block/$(basename "$LOOP")/loop/backing_file 2>/dev/null)\""
check "mount point removed, nothing left mounted" bash -c "test ! -e '$MP' && ! grep -q ' $TMP' /proc/self/mountinfo"

wv_mount "$VOL" "$MP" >/dev/null
check "same sha256 of every file after remount" bash -c "cd '$MP' && sha256sum --quiet -c '$TMP/sums'"
# A busy mount point: a process with its working folder there.
(cd "$MP" && sleep 30) &
BG_PIDS=$!
for _ in $(seq 100); do [ "$(readlink /proc/$BG_PIDS/cwd 2>/dev/null)" = "$MP" ] && break; sleep 0.05; done
ERR=$("$WARPVOL" dismount "$MP" 2>&1) && rc=0 || rc=$?
check "busy mount point: exit 5" test "$rc" = 5
check "busy mount point: the message names it" bash -c "grep -q -- '$MP' <<<\"\$1\"" _ "$ERR"
check "still mounted after the refused dismount" grep -q " $MP " /proc/self/mountinfo
kill $BG_PIDS 2>/dev/null; wait $BG_PIDS 2>/dev/null || true
BG_PIDS=
check "dismount once it is free" "$WARPVOL" dismount "$MP"

# fsck the filesystem through the plaintext device: the flush chain (ext4 -> loop -> FUSE -> container) was
# complete.
DEV=$(wv_mount "$VOL" --filesystem none --read-only)
check "e2fsck -n finds a clean filesystem" e2fsck -n -f "$DEV"
"$WARPVOL" dismount "$VOL"

# Read-only mount.
wv_mount "$VOL" "$MP" --read-only >/dev/null
check "read-only: same content" bash -c "cd '$MP' && sha256sum --quiet -c '$TMP/sums'"
check "read-only: creating a file fails" bash -c "! touch '$MP/new' 2>/dev/null"
check "read-only: writing an existing file fails" bash -c "! dd if=/dev/zero of='$MP/d1/f1.bin' bs=1 count=1 conv=notrunc status=none 2>/dev/null"
check "read-only: list says so" test "$("$WARPVOL" list --json | jget 'j[0]["read_only"]')" = "true"
# --force on a busy read-only mount: lazy unmount, then it goes away once the user leaves.
(cd "$MP" && sleep 2) &
BG_PIDS=$!
for _ in $(seq 100); do [ "$(readlink /proc/$BG_PIDS/cwd 2>/dev/null)" = "$MP" ] && break; sleep 0.05; done
check "dismount --force on a busy mount" "$WARPVOL" dismount "$MP" --force
wait $BG_PIDS 2>/dev/null || true
BG_PIDS=
# Generous: the kernel lets go of the lazily unmounted filesystem, loop device and FUSE mount in turn, which takes
# seconds on a loaded machine (ctest runs other mount tests beside this one).
for _ in $(seq 150); do [ "$("$WARPVOL" list --json)" = "[]" ] && break; sleep 0.2; done
check "lazily detached volume closed itself once free" test "$("$WARPVOL" list --json)" = "[]"
check "no leaks" no_leaks
finish
