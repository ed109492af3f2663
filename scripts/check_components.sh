#!/usr/bin/env bash
# scripts/check_components.sh [BUILD]: after a build, proves that every part the package list provides was built
# and is tested: the configure summary has no "NO" line (except the GPU engine on a machine without nvcc), the
# binaries exist, and ctest lists the GUI's tests. scripts/test.sh runs it; a missing part fails CI.
set -euo pipefail
build="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}"
summary="$build/warpvol-components.txt"
fail=0
bad() { printf 'check_components: %s\n' "$*" >&2; fail=1; }

[ -f "$summary" ] || { bad "no $summary (configure first)"; exit 1; }
printf 'check_components: configure summary\n' >&2
cat "$summary" >&2
while IFS= read -r line; do
  case "$line" in
    *"GPU engine"*": NO (no CUDA compiler found)"*)
      command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] && bad "nvcc is present but: $line" ;;
    *": NO ("*) bad "not built: $line" ;;
  esac
done <"$summary"

for bin in warpvol warpvol-mountd warpvol-gui doc/warpvol.1 doc/warpvol-gui.1 doc/warpvol.bash-completion; do
  [ -e "$build/$bin" ] || bad "missing $build/$bin"
done

tests=$(cd "$build" && ctest -N 2>/dev/null)
for family in 'gui\.' 'script\.' 'doc\.'; do
  n=$(grep -cE "Test +#[0-9]+: $family" <<<"$tests" || true)
  [ "$n" -gt 0 ] || bad "ctest lists no ${family%\\.}.* tests"
  printf 'check_components: %s tests: %s\n' "${family%\\.}.*" "$n" >&2
done
exit "$fail"
