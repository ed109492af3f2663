#!/usr/bin/env bash
# scripts/run.sh [ARGS]: install missing packages, build Release into build/, then run `warpvol ARGS`.
# With no ARGS: a short demo (self-test, quick benchmark, info + export of a bundled VeraCrypt container).
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

warpvol_install_deps
warpvol_build warpvol >&2
WARPVOL="$WARPVOL_BUILD/warpvol"

if [ "$#" -gt 0 ]; then
  exec "$WARPVOL" "$@"
fi

# ---- demo -------------------------------------------------------------------------------------------------------------
SAMPLE="$WARPVOL_ROOT/testvectors/veracrypt/fat.hc"
PASSWORD="warpvol-dev-fat"  # testvectors/veracrypt/MANIFEST.json, case "fat"
step() { printf '\n$ %s\n' "$*"; }

step warpvol test
"$WARPVOL" test

step warpvol benchmark --size 4M --min-time 0.1 --pim 1
"$WARPVOL" benchmark --size 4M --min-time 0.1 --pim 1

step "warpvol info $SAMPLE --password-stdin"
printf '%s\n' "$PASSWORD" | "$WARPVOL" info "$SAMPLE" --password-stdin

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
step "warpvol export $SAMPLE $OUT/fat.img --password-stdin"
printf '%s\n' "$PASSWORD" | "$WARPVOL" export "$SAMPLE" "$OUT/fat.img" --password-stdin
sha256sum "$OUT/fat.img"
if command -v mdir >/dev/null 2>&1; then
  step "mdir -i fat.img :: ; mtype -i fat.img ::HELLO.TXT"
  MTOOLS_SKIP_CHECK=1 mdir -i "$OUT/fat.img" ::
  MTOOLS_SKIP_CHECK=1 mtype -i "$OUT/fat.img" ::HELLO.TXT
fi
