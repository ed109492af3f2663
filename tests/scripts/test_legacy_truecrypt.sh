#!/usr/bin/env bash
# TrueCrypt volumes from before 5.0 (LRW, CBC, outer-/inner-CBC; AES, Serpent, Twofish, Blowfish, CAST5, Triple
# DES and their cascades; RIPEMD-160, SHA-1, Whirlpool): tests/oracle/tc_legacy.py builds them from the spec with
# Botan 2, checks them with its own reader, and compares warpvol info/export with the plaintext.
# Args: warpvol binary path, source dir.
set -u
BIN="$1"
SRC="$2"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warpvol-legacy-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Debian's python3-botan installs into the system python; prefer it over another python3 on PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" "$SRC/tests/oracle/tc_legacy.py" "$BIN" "$WORK"
