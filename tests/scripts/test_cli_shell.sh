#!/usr/bin/env bash
# warpvol from a shell, as scripts use it: passwords through a pipe and through another file descriptor, data on
# stdout only (export to '-' piped into sha256sum), exit codes in $?, nothing written on failure.
# Args: WARPVOL_BINARY SOURCE_DIR. Exit 77 = skip.
set -u
W="$1"
SRC="$2"
VC="$SRC/testvectors/veracrypt"
fail=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fail=1; }
expect_code() {  # expect_code WANT GOT WHAT
  if [ "$2" -eq "$1" ]; then ok "$3 (exit $2)"; else bad "$3: exit $2, want $1"; fi
}
sha() { python3 -c "import json,sys; print([f for f in json.load(open('$VC/MANIFEST.json'))['files'] if f['case']=='$1'][0]['$2'])"; }

[ -x "$W" ] || { echo "no warpvol binary at $W"; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing: skip"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# 1. export to stdout, password from a pipe; stdout carries exactly the data, stderr stays empty.
printf 'warpvol-dev-enc-twofish\n' | "$W" export "$VC/enc-twofish.hc" - --password-stdin --hash sha512 \
  >"$TMP/stdout.bin" 2>"$TMP/err"
expect_code 0 $? "export to stdout"
got="$(sha256sum <"$TMP/stdout.bin" | cut -d' ' -f1)"
[ "$got" = "$(sha enc-twofish decrypted_data_area_sha256)" ] && ok "stdout sha256 = VeraCrypt's" || bad "stdout sha256 $got"
[ ! -s "$TMP/err" ] && ok "nothing on stderr" || bad "stderr: $(cat "$TMP/err")"
rm -f "$TMP/stdout.bin"

# 2. password on fd 3 (here-string), keyfiles, info --json read back with python.
"$W" info "$VC/keyfile2.hc" --json --password-fd 3 -k "$VC/keyfile-b.key" -k "$VC/keyfile-c.key" --hash sha512 \
  3<<<"warpvol-dev-keyfile2" >"$TMP/info.json" 2>"$TMP/err"
expect_code 0 $? "info --password-fd 3 with two keyfiles"
python3 - "$TMP/info.json" <<'PY' && ok "info --json fields" || bad "info --json fields: $(cat "$TMP/info.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "VeraCrypt" and j["encryption"] == "AES" and j["prf"] == "sha512", j
assert j["data_offset"] == 131072 and j["data_size"] == 262144 and j["header"]["used"] == "primary", j
PY

# 3. wrong password: exit 2, one line on stderr, no stdout, no output file.
printf 'nope\n' | "$W" export "$VC/enc-aes.hc" "$TMP/out.img" --password-stdin --hash sha512 --encryption aes \
  >"$TMP/out" 2>"$TMP/err"
expect_code 2 $? "wrong password"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^warpvol: wrong password' "$TMP/err" && ok "one error line" \
  || bad "stderr: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] && ok "nothing on stdout" || bad "stdout not empty"
[ -z "$(ls -A "$TMP" | grep -v -e '^out$' -e '^err$' -e '^info.json$')" ] && ok "no file written" || bad "files: $(ls -A "$TMP")"

# 4. --json error object on stdout for scripts.
printf 'nope\n' | "$W" info "$VC/enc-aes.hc" --json --password-stdin --hash sha512 --encryption aes >"$TMP/out" 2>/dev/null
expect_code 2 $? "info --json wrong password"
python3 -c "import json,sys; j=json.load(open('$TMP/out')); assert j['code']==2 and 'wrong password' in j['error']" \
  && ok "json error object" || bad "json error: $(cat "$TMP/out")"

# 5. usage errors: exit 1.
"$W" export >/dev/null 2>&1; expect_code 1 $? "export without arguments"
"$W" info "$VC/enc-aes.hc" --non-interactive >/dev/null 2>&1; expect_code 1 $? "--non-interactive without password"

# 6. writing plaintext to an existing file is refused (5) and leaves it untouched.
echo keep >"$TMP/existing"
printf 'warpvol-dev-enc-aes\n' | "$W" export "$VC/enc-aes.hc" "$TMP/existing" --password-stdin --hash sha512 \
  2>/dev/null
expect_code 5 $? "export onto an existing file"
[ "$(cat "$TMP/existing")" = keep ] && ok "existing file untouched" || bad "existing file changed"

# 7. a closed stdout (reader gone) is an I/O error, not a crash.
printf 'warpvol-dev-fat\n' | "$W" export "$VC/fat.hc" - --password-stdin --hash sha512 --chunk-size 64K 2>"$TMP/err" \
  | head -c 1000 >/dev/null
code=${PIPESTATUS[1]}
if [ "$code" -eq 0 ] || [ "$code" -eq 3 ]; then ok "closed pipe handled (exit $code)"; else bad "closed pipe: exit $code"; fi

exit $fail
