#!/usr/bin/env bash
# In-place migration of TrueCrypt volumes from before 5.0 into VeraCrypt volumes (`warpvol reencrypt OLD.tc
# --new-encryption aes`): tests/oracle/tc_migrate.py builds legacy containers with the spec reader of tc_legacy.py
# (Botan 2), migrates them (every legacy mode, 64- and 128-bit-block ciphers, cascades, RIPEMD-160/SHA-1/Whirlpool),
# checks the result with the independent VeraCrypt reader (vc_oracle.py), refusals byte-identical (hidden volume,
# loop device), and kill -9 at random moments followed by resumes.
# Args: warpvol binary path, source dir.
set -u
BIN="$1"
SRC="$2"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warpvol-migrate-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Debian's python3-botan installs into the system python; prefer it over another python3 on PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" "$SRC/tests/oracle/tc_migrate.py" "$BIN" "$WORK"
