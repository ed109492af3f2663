#!/usr/bin/env bash
# doc.bash_completion: the generated completion completes commands, options, chain and PRF names, enumerated
# values and files, the way bash calls it (COMP_WORDS split at '=' as COMP_WORDBREAKS does).
# Args: WARPVOL_BINARY DOC_DIR
set -uo pipefail
doc=$2
fail=0
# shellcheck disable=SC1091
source "$doc/warpvol.bash-completion" || { echo "FAIL cannot source the completion"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/vol.hc" "$tmp/key.bin"

complete_line() {  # WORDS... (the last word is the one being completed)
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _warpvol
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # DESCRIPTION WANT -- WORDS...
  local what=$1 want=$2
  shift 3
  local got
  got=$(complete_line "$@")
  if grep -qxF -- "$want" <<<"$got"; then
    printf 'ok   %s\n' "$what"
  else
    printf 'FAIL %s: want %s in [%s]\n' "$what" "$want" "$(tr '\n' ' ' <<<"$got")"
    fail=1
  fi
}
expect_not() {  # DESCRIPTION UNWANTED -- WORDS...
  local what=$1 unwanted=$2
  shift 3
  if complete_line "$@" | grep -qxF -- "$unwanted"; then
    printf 'FAIL %s: %s offered\n' "$what" "$unwanted"
    fail=1
  else
    printf 'ok   %s\n' "$what"
  fi
}

expect "command name" export -- warpvol exp
expect "command after a global option" reencrypt -- warpvol --verbose reen
expect "help COMMAND" benchmark -- warpvol help bench
expect "an option of the command" --encryption -- warpvol create "$tmp/vol.hc" --encr
expect "a credential option" --password-stdin -- warpvol info "$tmp/vol.hc" --password-s
expect_not "no option of another command" --resilience -- warpvol info --resil
expect "chain names" aes-twofish-serpent -- warpvol create x --encryption aes-tw
expect "chain names after --opt=" serpent -- warpvol create x --encryption = ser
expect "PRF names" sha512 -- warpvol info x --hash sh
expect "enumerated values" gpu -- warpvol export x y --engine g
expect "a file for a positional" "$tmp/vol.hc" -- warpvol info "$tmp/vo"
expect "a file for a keyfile" "$tmp/key.bin" -- warpvol info x -k "$tmp/ke"
exit "$fail"
