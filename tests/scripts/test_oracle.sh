#!/usr/bin/env bash
# Independent oracle (tests/oracle/vc_oracle.py, Botan 2 + hashlib): decrypts what warpvol wrote using only the
# format spec. Args: warpvol binary path, source dir. Exit 77 (skipped) when python3-botan is missing.
set -u
BIN="$1"
SRC="$2"
PY=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import botan2' >/dev/null 2>&1; then PY="$p"; break; fi
done
if [ -z "$PY" ]; then
  echo "SKIP: no python3 with the botan2 module (Debian: python3-botan)"
  exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warpvol-oracle-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$PY" "$SRC/tests/oracle/vc_oracle.py" "$BIN" "$WORK" "$SRC"
