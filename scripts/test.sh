#!/usr/bin/env bash
# scripts/test.sh: install missing packages, build Release into build/, run the whole suite through ctest, then
# the fuzz targets (scripts/fuzz.sh: every committed input once, then 15 s of fuzzing per target; its own
# sanitized build in build-fuzz/). Exit code 0 only when both pass. WARPVOL_FUZZ_SECONDS changes the fuzzing time
# per target (0: committed inputs only).
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

warpvol_install_deps
warpvol_build

cd "$WARPVOL_BUILD"
set +e
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" </dev/null
rc=$?
cd "$WARPVOL_ROOT"
"$WARPVOL_ROOT/scripts/fuzz.sh" --seconds "${WARPVOL_FUZZ_SECONDS:-15}" </dev/null
fuzz_rc=$?
set -e
if [ "$rc" -eq 0 ] && [ "$fuzz_rc" -ne 0 ]; then
  echo "scripts/test.sh: ctest passed, the fuzz stage failed (scripts/fuzz.sh exit $fuzz_rc)" >&2
  rc=$fuzz_rc
fi
exit "$rc"
