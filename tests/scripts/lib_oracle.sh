# The independent VeraCrypt reader/writer (tests/oracle/vc_oracle.py) for the script tests; sourced after SRC is
# set. It needs Botan 2, which Debian's python3-botan installs into the system python: /usr/bin/python3 is tried
# before another python3 on PATH. require_oracle skips (77) where no python3 has it, as every oracle test did.
ORACLE="$SRC/tests/oracle/vc_oracle.py"
ORACLE_PY=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import botan2' >/dev/null 2>&1; then ORACLE_PY="$p"; break; fi
done
require_oracle() {
  if [ -z "$ORACLE_PY" ]; then
    echo "SKIP: no python3 with the botan2 module (Debian: python3-botan)"
    exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"
  fi
}
oracle() { "$ORACLE_PY" "$ORACLE" "$@"; }
