#!/usr/bin/env bash
# ctest entry for the fleet tests: makes sure the fleet venv exists (scripts/fleet-venv.sh: pinned Ray from PyPI),
# then runs fleet/tests/TEST.py with its Python. Args: TEST (file name without .py), warpvol binary.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TEST=${1:?test name}
WV=${2:?warpvol binary}
VENV="$("$HERE/../../scripts/fleet-venv.sh")"
exec "$VENV/bin/python" "$HERE/$TEST.py" "$WV"
