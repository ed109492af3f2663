#!/usr/bin/env bash
# doc.man_page: the generated warpvol(1) renders without groff warnings and names every command, every option of
# every command (as `warpvol COMMAND --help` lists them) and every exit code of `warpvol --help`.
# Args: WARPVOL_BINARY DOC_DIR
set -uo pipefail
wv=$1 doc=$2
fail=0
bad() { printf 'FAIL %s\n' "$*"; fail=1; }
page="$doc/warpvol.1"
[ -s "$page" ] || { echo "FAIL no $page"; exit 1; }
command -v man >/dev/null || { echo "FAIL man is not installed (Debian package man-db)"; exit "${WARPVOL_MISSING_PACKAGE_EXIT:-77}"; }

for p in "$page" "$doc/warpvol-gui.1"; do
  warnings=$(MANWIDTH=100 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
  [ -z "$warnings" ] || bad "$(basename "$p") renders with warnings: $warnings"
done
text=$(MANWIDTH=200 man -E UTF-8 -l "$page" 2>/dev/null | col -b)

commands=$("$wv" --help | awk '/^Commands:/{on=1; next} /^$/{on=0} on {print $1}')
[ -n "$commands" ] || bad "no commands in warpvol --help"
for c in $commands; do
  grep -qE "warpvol $c( |$)" <<<"$text" || bad "command $c missing from the man page"
  for o in $("$wv" "$c" --help | grep -oE '^ +(-[a-zA-Z] \[ )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
    grep -qF -- "$o" <<<"$text" || bad "option $o of $c missing from the man page"
  done
done
# Every exit code with its meaning, as --help prints them.
while read -r code meaning; do
  [ -n "$code" ] || continue
  grep -qF -- "$meaning" <<<"$text" || bad "exit code $code ($meaning) missing from the man page"
done < <("$wv" --help | awk '/^Exit codes:/{on=1; next} /^$/{on=0} on')
[ "$fail" = 0 ] && echo "ok: the man page covers $(wc -w <<<"$commands") commands, their options and the exit codes"
exit "$fail"
