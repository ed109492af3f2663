#!/usr/bin/env bash
# Cost of opening a volume: `warpvol info` of VeraCrypt's enc-aes.hc (SHA-512, default PIM)
# with the right password and no hints, and with a wrong password (the full search over formats, PRFs, slots and
# chains), next to one 500k-iteration PBKDF2-HMAC-SHA512 measured by `warpvol benchmark` in the same run.
# Goals: right <= 1.3 x one PBKDF2-SHA512 500k; wrong < 15.7 s (VeraCrypt 1.26.27 on the reference machine).
# A shared virtual machine's speed drifts from one second to the next, so the right-password open and the PBKDF2 block
# alternate, 5 times each, and the medians are compared; the wrong password runs 3 times (median and slowest are
# printed). Usage: bench/open_time.sh [BUILD_DIR]   (default build/)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build}/warpvol
vol=$root/testvectors/veracrypt/enc-aes.hc
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
kdfs="" rights=""
for _ in 1 2 3 4 5; do
  kdfs+=" $("$bin" benchmark --kdf-only --hash sha512 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["seconds"])')"
  t0=$(now)
  printf 'warpvol-dev-enc-aes\n' | "$bin" info "$vol" --password-stdin >/dev/null
  t1=$(now)
  rights+=" $(calc "$t1 - $t0")"
done
kdf=$(echo "$kdfs" | median) right=$(echo "$rights" | median)
echo "PBKDF2-HMAC-SHA512 500k, one block:   $kdf s (median of:$kdfs)"
printf 'right password, no hints:            %.3f s = %.2f x PBKDF2 (goal <= 1.3; median of:%s)\n' "$right" \
  "$(calc "$right / $kdf")" "$rights"

wrongs=""
for _ in 1 2 3; do
  t0=$(now)
  rc=0
  printf 'not the password\n' | "$bin" info "$vol" --password-stdin >/dev/null 2>&1 || rc=$?
  t1=$(now)
  [ "$rc" = 2 ] || { echo "wrong password gave exit code $rc, expected 2" >&2; exit 1; }
  wrongs+=" $(calc "$t1 - $t0")"
done
printf 'wrong password, full search:         %s s median, %s s slowest (goal < 15.7 s, VeraCrypt; runs:%s)\n' \
  "$(echo "$wrongs" | median)" "$(echo "$wrongs" | tr ' ' '\n' | grep . | sort -g | tail -1)" "$wrongs"
