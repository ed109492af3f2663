#!/usr/bin/env bash
# scripts/test.sh: install missing packages, build Release into build/, run the whole suite through ctest.
# The exit code is ctest's.
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

warpvol_install_deps
warpvol_build
# The fleet tests' venv (Ray from PyPI), made once before ctest runs them (they would make it too, one at a time).
"$(dirname "${BASH_SOURCE[0]}")/fleet-venv.sh" > /dev/null || warpvol_log "the fleet venv could not be made (PyPI?)"

cd "$WARPVOL_BUILD"
set +e
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" </dev/null
rc=$?
set -e
exit "$rc"
