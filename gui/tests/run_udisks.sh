#!/usr/bin/env bash
# gui.udisks_user_mount: the GUI's path for a normal desktop user -- FUSE as that user, loop device and mount through
# udisks2 over D-Bus -- end to end, on a machine that has no system bus, udisks2, udev or polkit (CI's container).
# As root it sets up, in a private mount namespace so nothing leaks: a private "system" bus (dbus-daemon), the
# stand-in udisksd (mock_udisksd.cpp, which does udisksd's kernel operations but no polkit), /dev/fuse usable by
# everyone and user_allow_other in fuse.conf (Debian's defaults are 0666 and a commented line: the second is what a
# user has to change, and the GUI says so). Then `nobody` mounts, writes and dismounts through the GUI's operations
# (udisks_user.cpp), and root checks the written file through `warpvol mount` and that no loop device is left.
# Usage: run_udisks.sh WARPVOL_BIN_DIR   (exit 77 = skipped, with the reason)
set -euo pipefail
bin=$(cd "$1" && pwd)

if [ "${WARPVOL_UDISKS_NS:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (loop devices, mount, a private mount namespace)"; exit 77; }
  for t in dbus-daemon unshare runuser mkfs.ext4 blkid; do
    command -v $t >/dev/null || { echo "SKIP: $t is not installed"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }
  done
  [ -e /dev/fuse ] && [ -e /dev/loop-control ] || { echo "SKIP: no /dev/fuse or /dev/loop-control"; exit 77; }
  id nobody >/dev/null 2>&1 || { echo "SKIP: no user 'nobody'"; exit 77; }
  WARPVOL_UDISKS_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi

t=$(mktemp -d /tmp/warpvol-udisks.XXXXXX)
chmod 755 "$t"
pids=()
cleanup() {
  set +e
  # The stand-in udisksd first: it unmounts and deletes what it set up (a mount whose FUSE file is gone would
  # leave a loop device that no longer names its file). Then the processes, then whatever is still mounted.
  for p in "${pids[@]}" ${dbus_pid:-}; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  "$bin/warpvol" dismount --all --force >/dev/null 2>&1
  pkill -u nobody -f "$t/bin/warpvol-mountd" 2>/dev/null
  sleep 0.3
  for m in $(awk -v t="$t" 'index($2, t) == 1 { print $2 }' /proc/self/mounts | sort -r); do umount -l "$m"; done
  rm -rf "$t"
}
trap cleanup EXIT

# Only inside this namespace: /dev/fuse open to all (Debian's default mode) and fuse.conf with user_allow_other.
mknod -m 666 "$t/fuse" c 10 229
mount --bind "$t/fuse" /dev/fuse
printf 'user_allow_other\n' >"$t/fuse.conf"
mount --bind "$t/fuse.conf" /etc/fuse.conf

# The private system bus, open to every user like the real one.
mkdir -m 755 "$t/bus"
cat >"$t/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$t/bus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$t/bus.conf" --nofork --nopidfile 2>"$t/dbus.log" &
dbus_pid=$!
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$t/bus/system_bus_socket"
for _ in $(seq 50); do [ -S "$t/bus/system_bus_socket" ] && break; sleep 0.1; done

mkdir -m 755 "$t/media"
"$bin/gui-tests/mock_udisksd" "$t/media" >"$t/udisksd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q '^ready' "$t/udisksd.log" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$t/udisksd.log" || { cat "$t/udisksd.log"; echo "FAIL: mock udisksd did not start"; exit 1; }

# Root makes the volume (ext4) and a folder in it that the user owns.
printf 'udisks-test-pass\n' >"$t/pw"
chmod 644 "$t/pw"
export XDG_RUNTIME_DIR="$t/root-run"
"$bin/warpvol" create "$t/v.hc" --size 48M --encryption serpent --hash sha256 --pim 1 --filesystem ext4 \
  --password-stdin <"$t/pw" >/dev/null
"$bin/warpvol" mount "$t/v.hc" "$t/root-mnt" --password-stdin --hash sha256 --pim 1 <"$t/pw" >/dev/null
install -d -o nobody "$t/root-mnt/home"
"$bin/warpvol" dismount "$t/root-mnt" >/dev/null
chown nobody "$t/v.hc"

# The user's part. Binaries are copied where `nobody` may run them (the build folder may be under /root).
mkdir -m 755 "$t/bin"
cp "$bin/gui-tests/gui_udisks_user" "$bin/warpvol-mountd" "$t/bin/"
install -d -o nobody -m 700 "$t/user-run" "$t/user-home"
rc=0
runuser -u nobody -- env -i PATH="$PATH" HOME="$t/user-home" XDG_RUNTIME_DIR="$t/user-run" \
  DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" WARPVOL_MOUNTD="$t/bin/warpvol-mountd" \
  "$t/bin/gui_udisks_user" "$t/v.hc" "$t/pw" >"$t/user.log" 2>&1 || rc=$?
cat "$t/user.log"
echo "--- mock udisksd:"
cat "$t/udisksd.log"
[ "$rc" = 0 ] || { echo "FAIL: the user's mount through udisks2 failed (exit $rc)"; exit 1; }

# Root checks what the user wrote, through its own mount of the container, and that no loop device is left.
want=$(awk '/^sha256 / { print $2 }' "$t/user.log")
"$bin/warpvol" mount "$t/v.hc" "$t/root-mnt" --read-only --password-stdin --hash sha256 --pim 1 <"$t/pw" >/dev/null
got=$(sha256sum "$t/root-mnt/home/data.bin" | cut -d' ' -f1)
"$bin/warpvol" dismount "$t/root-mnt" >/dev/null
[ -n "$want" ] && [ "$got" = "$want" ] || { echo "FAIL: data.bin read back as $got, the user wrote $want"; exit 1; }
echo "ok: root reads back what the user wrote (sha256 $got)"
left=$(losetup -a | grep -c "$t" || true)
[ "$left" = 0 ] || { losetup -a; echo "FAIL: $left loop device(s) left"; exit 1; }
echo "ok: no loop device left"

# Without user_allow_other the GUI names the line to add, and a mount is refused before anything starts.
printf '#user_allow_other\n' >"$t/fuse.conf"
rc=0
runuser -u nobody -- env -i PATH="$PATH" HOME="$t/user-home" XDG_RUNTIME_DIR="$t/user-run" \
  DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" WARPVOL_MOUNTD="$t/bin/warpvol-mountd" \
  "$t/bin/gui_udisks_user" "$t/v.hc" "$t/pw" >"$t/user2.log" 2>&1 || rc=$?
cat "$t/user2.log"
[ "$rc" = 3 ] && [ "$(grep -c 'user_allow_other' "$t/user2.log")" = 2 ] ||
  { echo "FAIL: expected the problem and the refusal to name user_allow_other (exit $rc)"; exit 1; }
[ -z "$(ls -A "$t/user-run/warpvol/aux" 2>/dev/null)" ] || { echo "FAIL: a FUSE folder was left"; exit 1; }
echo "ok: without user_allow_other the GUI says which line is missing"
echo "PASS"
