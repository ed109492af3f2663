#!/usr/bin/env bash
# Runs the end-to-end GUI test under Xvfb as root (it creates a loop device and mounts ext4). Exit 77 = skipped.
# Screenshots go to the build folder, or to docs/screenshots with WARPVOL_UPDATE_SCREENSHOTS=1.
set -u
bin=$1 src=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: the end-to-end GUI test needs root (loop device, mount)"; exit 77; }
[ -e /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run is not installed (Debian package xvfb)"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }
command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }
if [ "${WARPVOL_UPDATE_SCREENSHOTS:-0}" = 1 ]; then
  export WARPVOL_SCREENSHOT_DIR="$src/docs/screenshots"
else
  export WARPVOL_SCREENSHOT_DIR="$(dirname "$bin")/screenshots"
fi
export WARPVOL_MOUNTD="${WARPVOL_MOUNTD:-$(dirname "$(dirname "$bin")")/warpvol-mountd}"
exec xvfb-run -a -s "-screen 0 1280x900x24" "$bin" -platform xcb
