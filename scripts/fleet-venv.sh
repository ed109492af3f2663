#!/usr/bin/env bash
# scripts/fleet-venv.sh: the Python environment of warpvol-fleet (fleet/): a venv in build/fleet-venv
# ($WARPVOL_FLEET_VENV overrides) with the Ray version pinned in fleet/pyproject.toml and warpvol-fleet installed
# editable (console script build/fleet-venv/bin/warpvol-fleet). Needs python3-venv (scripts/deps.sh) and PyPI.
# Idempotent and quick once made: it reinstalls only when fleet/pyproject.toml changed. Prints the venv's folder.
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

VENV="${WARPVOL_FLEET_VENV:-$WARPVOL_BUILD/fleet-venv}"
# Debian's python3 (the one python3-venv belongs to) rather than whatever python3 comes first on PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mkdir -p "$(dirname "$VENV")"
# ctest runs the fleet tests in parallel: one of them makes the venv, the others wait for it.
exec 9> "$VENV.lock"
flock 9
want="$(sha256sum "$WARPVOL_ROOT/fleet/pyproject.toml" | cut -d' ' -f1)"
stamp="$VENV/.warpvol-fleet-pyproject-sha256"
if [ -x "$VENV/bin/warpvol-fleet" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  printf '%s\n' "$VENV"
  exit 0
fi
warpvol_log "making the warpvol-fleet venv in $VENV (Ray from PyPI)"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV" </dev/null
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$WARPVOL_ROOT/fleet" </dev/null >&2
printf '%s\n' "$want" > "$stamp"
printf '%s\n' "$VENV"
