#!/usr/bin/env bash
# warpvol-fleet on a local Ray cluster of 1 and 3 nodes against one `warpvol reencrypt --jobs 2`, on the fleet
# test's 20 containers: containers per minute and aggregate GB/s (bench/fleet_bench.py says what is measured).
#   bench/fleet.sh [BUILD] [ROUNDS]      (BUILD default build/, ROUNDS default 3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=${1:-$ROOT/build}
ROUNDS=${2:-3}
VENV="$("$ROOT/scripts/fleet-venv.sh")"
exec "$VENV/bin/python" "$ROOT/bench/fleet_bench.py" "$BUILD/warpvol" "$ROUNDS"
