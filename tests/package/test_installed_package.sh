#!/usr/bin/env bash
# tests/package/test_installed_package.sh DEB: installs the Debian package with apt on this machine and checks the
# installed programs as a user who never built warpvol would use them: --version, the self-test, the man pages
# and the completion, every binary's libraries resolved, a create/import/export round trip, a mount where the
# machine allows it, and the GUI starting. The package is removed again afterwards when it was not installed
# before. Needs root (apt); scripts/test.sh runs it after the suite.
set -uo pipefail
deb=$(realpath "${1:?usage: $0 path/to/warpvol_VERSION_ARCH.deb}")
[ "$(id -u)" = 0 ] || { echo "SKIP: installing a package needs root"; exit 77; }

fail=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; fail=1; }
check() {  # DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@" >"$tmp/out" 2>&1; then ok "$what"; else bad "$what: $(tail -3 "$tmp/out" | tr '\n' ' ')"; fi
}

tmp=$(mktemp -d /tmp/warpvol-package.XXXXXX)
was_installed=0
dpkg-query -W -f='${Status}' warpvol 2>/dev/null | grep -q 'install ok installed' && was_installed=1
cleanup() {
  WARPVOL_RUNTIME_DIR="$tmp/run" /usr/bin/warpvol dismount --all >/dev/null 2>&1
  [ "$was_installed" = 1 ] || DEBIAN_FRONTEND=noninteractive apt-get remove -y warpvol >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "installing $deb"
dpkg-deb --field "$deb" Package Version Depends
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" </dev/null >"$tmp/apt.log" 2>&1; then
  tail -20 "$tmp/apt.log"
  echo "FAIL apt-get install of the package"
  exit 1
fi
ok "apt-get install ./$(basename "$deb")"

version=$(dpkg-deb --field "$deb" Version)
check "warpvol --version says $version" bash -c "/usr/bin/warpvol --version | grep -qx 'warpvol $version'"
check "warpvol test (the installed self-test)" /usr/bin/warpvol test
check "man -w warpvol" man -w warpvol
check "man -w warpvol-gui" man -w warpvol-gui
check "bash completion installed" test -s /usr/share/bash-completion/completions/warpvol
check "desktop file installed" test -s /usr/share/applications/warpvol-gui.desktop
check "icon installed" test -s /usr/share/icons/hicolor/scalable/apps/warpvol.svg
for b in /usr/bin/warpvol /usr/bin/warpvol-gui /usr/libexec/warpvol/warpvol-mountd; do
  if [ ! -x "$b" ]; then
    bad "$b missing"
  elif ldd "$b" | grep -q 'not found'; then
    bad "$b: $(ldd "$b" | grep 'not found' | tr '\n' ' ')"
  else
    ok "$b: every library found"
  fi
done

# Round trip with the installed binary: random image -> import -> export equals the image.
head -c $((8 << 20)) /dev/urandom >"$tmp/plain.img"
check "import with the installed warpvol" bash -c "printf 'pw-package-test\n' | /usr/bin/warpvol import '$tmp/plain.img' \
  '$tmp/v.hc' --encryption serpent --hash sha512 --pim 1 --password-stdin"
check "export with the installed warpvol" bash -c "printf 'pw-package-test\n' | /usr/bin/warpvol export '$tmp/v.hc' \
  '$tmp/out.img' --pim 1 --password-stdin --quiet"
check "export equals the imported image" cmp "$tmp/plain.img" "$tmp/out.img"
# create's default filesystem (FAT) is made through a mount of the new volume: only where FUSE exists.
fs_option=()
[ -c /dev/fuse ] || fs_option=(--filesystem none)
check "create with the installed warpvol" bash -c "printf 'pw-package-test\n' | /usr/bin/warpvol create '$tmp/c.hc' \
  --size 4M --encryption aes --hash sha512 --pim 1 --password-stdin ${fs_option[*]}"
check "info of the created volume" bash -c "printf 'pw-package-test\n' | /usr/bin/warpvol info '$tmp/c.hc' --pim 1 \
  --password-stdin | grep -q AES"

# The mount through the installed warpvol-mountd (found in /usr/libexec/warpvol/), where this machine has FUSE.
if [ -c /dev/fuse ] && grep -qw fuse /proc/filesystems; then
  export WARPVOL_RUNTIME_DIR="$tmp/run" WARPVOL_MEDIA_DIR="$tmp/media"
  if dev=$(printf 'pw-package-test\n' | /usr/bin/warpvol mount "$tmp/v.hc" --filesystem none --read-only --pim 1 \
      --password-stdin 2>"$tmp/mount.err"); then
    ok "mount with the installed warpvol-mountd ($dev)"
    check "the mounted plaintext equals the image" cmp "$tmp/plain.img" "$dev"
    check "dismount" /usr/bin/warpvol dismount "$tmp/v.hc"
  else
    bad "mount with the installed warpvol-mountd: $(cat "$tmp/mount.err")"
  fi
else
  echo "skip mount: no /dev/fuse on this machine"
fi

# The GUI starts and runs its event loop (offscreen: CI has no display); timeout ends it.
QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp" HOME="$tmp" timeout 5 /usr/bin/warpvol-gui >"$tmp/gui.log" 2>&1
rc=$?
if [ "$rc" = 124 ]; then ok "warpvol-gui starts"; else bad "warpvol-gui exited with $rc: $(tail -3 "$tmp/gui.log")"; fi

[ "$fail" = 0 ] && echo "installed package: all checks passed"
exit "$fail"
