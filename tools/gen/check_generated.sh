#!/bin/bash
# Regenerates the four generated sources into a temporary folder and compares them with the checked-in files.
# Usage: check_generated.sh GEN_SERPENT_SBOXES SERPENTP_H PYTHON3 SOURCE_DIR
set -u
gen=$1 serpentp=$2 python=$3 src=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
check() {  # check FILE (relative to SOURCE_DIR), then the generator's command line
  local file=$1; shift
  if ! "$@" > "$tmp/out" 2> "$tmp/err"; then
    echo "FAILED: $* (writes $file):"; cat "$tmp/err"; status=1
  elif ! cmp -s "$tmp/out" "$src/$file"; then
    echo "DIFFERS: $file is not what its generator writes now ($*); rerun it (tools/gen/README.md):"
    diff -u "$src/$file" "$tmp/out" | head -20; status=1
  else
    echo "same: $file"
  fi
}
check core/crypto/simd/serpent_sboxes.h "$gen" simd "$serpentp"
check gpu/serpent_sbox.inc "$gen" gpu
check core/crypto/simd/camellia_consts.h "$python" "$src/tools/gen/camellia_sbox_gen.py"
check core/selftest/selftest_vectors.inc "$python" "$src/tools/gen/selftest_vectors.py"
exit $status
