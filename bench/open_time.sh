#!/usr/bin/env bash
# Cost of opening a volume (issue 2, performance): `warpvol info` of VeraCrypt's enc-aes.hc (SHA-512, default PIM)
# with the right password and no hints, and with a wrong password (the full search over formats, PRFs, slots and
# chains), next to one 500k-iteration PBKDF2-HMAC-SHA512 measured by `warpvol benchmark` in the same run.
# Goals: right <= 1.3 x one PBKDF2-SHA512 500k; wrong < 15.7 s (VeraCrypt 1.26.27 on the reference machine).
# Usage: bench/open_time.sh [BUILD_DIR]   (default build/)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
vol=$root/testvectors/veracrypt/enc-aes.hc
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
kdf=$("$bin" benchmark --kdf-only --hash sha512 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["seconds"])')
echo "PBKDF2-HMAC-SHA512 500k, one block:   $kdf s"

t0=$(now)
printf 'warpvol-dev-enc-aes\n' | "$bin" info "$vol" --password-stdin >/dev/null
t1=$(now)
right=$(calc "$t1 - $t0")
printf 'right password, no hints:            %.3f s = %.2f x PBKDF2 (goal <= 1.3)\n' "$right" "$(calc "$right / $kdf")"

t0=$(now)
rc=0
printf 'not the password\n' | "$bin" info "$vol" --password-stdin >/dev/null 2>&1 || rc=$?
t1=$(now)
[ "$rc" = 2 ] || { echo "wrong password gave exit code $rc, expected 2" >&2; exit 1; }
printf 'wrong password, full search:         %.3f s (goal < 15.7 s, VeraCrypt)\n' "$(calc "$t1 - $t0")"
