#!/usr/bin/env bash
# Independent oracle (tests/oracle/vc_oracle.py, Botan 2 + hashlib): decrypts what warpvol wrote using only the
# format spec. Args: warpvol binary path, source dir. Exit 77 (skipped) when python3-botan is missing.
set -u
BIN="$1"
SRC="$2"
. "$SRC/tests/scripts/lib_oracle.sh"
require_oracle
WORK=$(mktemp -d "${TMPDIR:-/tmp}/warpvol-oracle-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
oracle judge "$BIN" "$WORK" "$SRC"
