#!/bin/bash
# The Slurm front end of warpvol-fleet: checks every container of MANIFEST on this machine (`warpvol-fleet
# preflight`: nothing is written; stops at the first bad line, as `warpvol-fleet reencrypt` without --skip-bad),
# then submits one array task per container, at most PARALLEL at once (default 16). Afterwards
# `warpvol-fleet report --manifest MANIFEST` prints the report from the state file.
#   fleet/slurm/submit.sh MANIFEST [--parallel N] [options for preflight and run-one, e.g. --new-encryption serpent]
# Extra sbatch options: SBATCH_* environment variables (e.g. SBATCH_PARTITION), as sbatch reads them.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MANIFEST=${1:?usage: submit.sh MANIFEST [--parallel N] [options]}
shift
PARALLEL=16
if [ "${1:-}" = --parallel ]; then PARALLEL=${2:?--parallel N}; shift 2; fi
FLEET=${WARPVOL_FLEET:-warpvol-fleet}
"$FLEET" preflight --manifest "$MANIFEST" "$@"
N=$(grep -c '[^[:space:]]' "$MANIFEST")
sbatch --array="0-$((N - 1))%$PARALLEL" "$HERE/reencrypt-array.sbatch" "$MANIFEST" "$@"
