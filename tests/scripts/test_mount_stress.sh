#!/usr/bin/env bash
# Concurrency and crash: fio readers and writers (with fio's own data verification) run for a bounded time on a
# mounted ext4 volume; the data then survives dismount and remount (sha256). Then the FUSE process is killed with
# SIGKILL while a writer is busy: `list` reports it dead, `dismount --all` still cleans up, and no mount, loop
# device or FUSE process is left. Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skipped.
source "$(dirname "$0")/lib_mount.sh"
need_mount_env
need_loop
command -v fio >/dev/null || skip_missing "fio not installed"
command -v mkfs.ext4 >/dev/null || skip_missing "mkfs.ext4 not installed (e2fsprogs)"
RUNTIME=${WARPVOL_STRESS_SECONDS:-12}

VOL="$TMP/stress.hc"
MP="$TMP/mnt"
make_container "$VOL" 96M
DEV=$(wv_mount "$VOL" --filesystem none)
mkfs.ext4 -q -F -E nodiscard "$DEV"
"$WARPVOL" dismount "$VOL"
wv_mount "$VOL" "$MP" >/dev/null

# Readers read a file written first; writers write and verify (crc32c in every block, checked by fio after the
# writes and while they run) — with direct I/O, so the requests really reach the FUSE process.
check "fio: prepare the read file" fio --name=prep --filename="$MP/read.dat" --rw=write --bs=1M --size=24M \
  --direct=1 --output=/dev/null
sha_read_before=$(sha256sum <"$MP/read.dat" | cut -d' ' -f1)
cat >"$TMP/stress.fio" <<EOF
[global]
directory=$MP
direct=1
ioengine=psync
time_based=1
runtime=$RUNTIME
group_reporting=1

[writers]
rw=randwrite
bsrange=4k-512k
size=16M
numjobs=2
verify=crc32c
verify_backlog=64
verify_fatal=1

[readers]
filename=$MP/read.dat
rw=randread
bsrange=4k-1M
size=24M
numjobs=2
EOF
(cd "$TMP" && fio "$TMP/stress.fio" --output="$TMP/fio.out") && rc=0 || rc=$?
check "fio readers and writers for ${RUNTIME}s: no error, verification passed" test "$rc" = 0
grep -E "READ:|WRITE:|err=" "$TMP/fio.out" | sed 's/^/# /'
check "fio reported no verify failure" bash -c "! grep -qi 'verify.*fail\|bad magic\|crc32c.*mismatch' '$TMP/fio.out'"
check "the read-only file did not change" test "$(sha256sum <"$MP/read.dat" | cut -d' ' -f1)" = "$sha_read_before"
(cd "$MP" && find . -type f | sort | xargs sha256sum) >"$TMP/sums"
check "dismount after the stress run" "$WARPVOL" dismount "$MP"
wv_mount "$VOL" "$MP" >/dev/null
check "after remount every file has the same sha256" bash -c "cd '$MP' && sha256sum --quiet -c '$TMP/sums'"

# Kill the FUSE process while a writer is busy.
L=$("$WARPVOL" list --json)
PID=$(jget 'j[0]["pid"]' <<<"$L")
LOOP=$(jget 'j[0]["loop_device"]' <<<"$L")
AUX=$(dirname "$(jget 'j[0]["plaintext_device"]' <<<"$L")")
(dd if=/dev/zero of="$MP/busy.dat" bs=1M count=2000 oflag=direct status=none 2>/dev/null || true) &
BG_PIDS=$!
sleep 1
kill -9 "$PID"
for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
check "FUSE process is gone" bash -c "! kill -0 $PID 2>/dev/null"
wait $BG_PIDS 2>/dev/null || true
BG_PIDS=
L=$("$WARPVOL" list --json)
check "list reports the FUSE process dead" \
  test "$(jget '[j[0]["fuse_alive"], j[0]["status"]]' <<<"$L")" = '[false, "FUSE process dead"]'
check "list (text) says DEAD" bash -c "'$WARPVOL' list | grep -q DEAD"
OUT=$("$WARPVOL" dismount --all 2>&1) && rc=0 || rc=$?
echo "$OUT" | sed 's/^/# /'
check "dismount --all after the crash succeeds" test "$rc" = 0
check "dismount says the FUSE process had died" bash -c "grep -q 'had died' <<<\"\$1\"" _ "$OUT"
check "registry empty" test "$("$WARPVOL" list --json)" = "[]"
check "filesystem unmounted" bash -c "! grep -q ' $MP ' /proc/self/mountinfo"
check "FUSE mount gone" bash -c "! grep -q ' $AUX ' /proc/self/mountinfo"
check "loop device detached" bash -c "test -z \"\$(cat /sys/block/$(basename "$LOOP")/loop/backing_file 2>/dev/null)\""
check "no leaks" no_leaks
# The container still opens and mounts after the crash (ext4 replays its journal).
wv_mount "$VOL" "$MP" >/dev/null && rc=0 || rc=$?
check "the volume mounts again after the crash" test "$rc" = 0
check "files written before the crash are intact" bash -c "cd '$MP' && sha256sum --quiet -c '$TMP/sums'"
check "final dismount" "$WARPVOL" dismount --all
check "no leaks at the end" no_leaks
finish
