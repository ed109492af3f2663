#!/usr/bin/env bash
# Takes the feature screenshots (favourites, preferences, keyfile generator, about, benchmark window, crossover plot)
# under Xvfb with the xcb platform, as the end-to-end test does. Needs no root. Screenshots go to the build folder,
# or to docs/screenshots with WARPVOL_UPDATE_SCREENSHOTS=1.
set -u
bin=$1 src=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing: install the Debian package xvfb (scripts/deps.sh)"; exit 1; }
if [ "${WARPVOL_UPDATE_SCREENSHOTS:-0}" = 1 ]; then
  export WARPVOL_SCREENSHOT_DIR="$src/docs/screenshots"
else
  export WARPVOL_SCREENSHOT_DIR="$(dirname "$bin")/screenshots"
fi
exec xvfb-run -a -s "-screen 0 1280x900x24" "$bin" -platform xcb
