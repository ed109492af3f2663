#!/usr/bin/env bash
# scripts/test.sh: install missing packages, build Release into build/ with every part required, prove that every
# part was built (scripts/check_components.sh), run the whole suite through ctest, then build the Debian package,
# install it on this machine and check the installed programs (tests/package/), then the fuzz targets
# (scripts/fuzz.sh: every committed input once, then 15 s of fuzzing per target; its own sanitized build in
# build-fuzz/; WARPVOL_FUZZ_SECONDS changes the time per target, 0 = committed inputs only). Fails when any stage
# fails.
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

warpvol_install_deps
warpvol_build
# The fleet tests' venv (Ray from PyPI), made once before ctest runs them (they would make it too, one at a time).
"$(dirname "${BASH_SOURCE[0]}")/fleet-venv.sh" > /dev/null || warpvol_log "the fleet venv could not be made (PyPI?)"

failed=()
bash "$WARPVOL_ROOT/scripts/check_components.sh" "$WARPVOL_BUILD" || failed+=(components)

# A test that would skip because a package is missing fails instead: deps.sh installed everything the tests use,
# so a missing one is a gap in the package list. Skips for what a machine cannot have (root, /dev/fuse, a GPU)
# stay skips.
export WARPVOL_MISSING_PACKAGE_EXIT=1
set +e
(cd "$WARPVOL_BUILD" && ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" </dev/null) | tee "$WARPVOL_BUILD/ctest.log"
ctest_rc=${PIPESTATUS[0]}
set -e
[ "$ctest_rc" = 0 ] || failed+=(ctest)

if [ "$(id -u)" = 0 ]; then
  if deb=$(bash "$WARPVOL_ROOT/scripts/package.sh" | tail -1) && [ -f "$deb" ]; then
    bash "$WARPVOL_ROOT/tests/package/test_installed_package.sh" "$deb" || failed+=(installed-package)
  else
    failed+=(package)
  fi
else
  warpvol_log "not root: the .deb is not installed and checked (run as root, as CI does)"
fi

(cd "$WARPVOL_ROOT" && "$WARPVOL_ROOT/scripts/fuzz.sh" --seconds "${WARPVOL_FUZZ_SECONDS:-15}" </dev/null) ||
  failed+=(fuzz)

echo
if [ "${#failed[@]}" -gt 0 ]; then
  warpvol_log "FAILED stages: ${failed[*]}"
else
  warpvol_log "every stage passed (components, ctest, package, fuzz)"
fi
# ctest's own closing line last, so that a reader of the log's tail sees the suite's count.
grep -E '^[0-9]+% tests passed' "$WARPVOL_BUILD/ctest.log" || true
[ "${#failed[@]}" -eq 0 ]
