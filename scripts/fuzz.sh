#!/usr/bin/env bash
# scripts/fuzz.sh: builds the libFuzzer targets of tests/fuzz/ (clang, ASan+UBSan, its own build-fuzz/), runs every
# committed input (tests/fuzz/corpus/<target>/ seeds and tests/fuzz/regress/<target>/ crash reproducers) once as a
# regression test, then fuzzes each target for a bounded time. Exit status 0 only when no input crashed, leaked,
# hit undefined behaviour, timed out or broke a target's property check.
#
#   scripts/fuzz.sh [--seconds N] [--runs N] [--corpus DIR] [--build-only] [--no-regress] [TARGET...]
#     --seconds N   fuzzing time per target (default 15; 0 = regression inputs only)
#     --runs N      also stop a target after N executions
#     --corpus DIR  keep what the fuzzer finds in DIR/<target>/ (default: a temporary folder, discarded)
#     --keep-going  fuzz on past failing inputs (libFuzzer -fork=1 -ignore_crashes=1), collecting them all
#     TARGET        fuzz_header_layout, fuzz_journal, ... (default: all)
# One closing line per target:
#   "fuzz TARGET: ok|FAILED, K committed inputs, E executions in S s, cov C, ft F, corpus U units, N new crash inputs"
# Crash inputs go to <build>/fuzz-artifacts/<target>/; copy them to tests/fuzz/regress/<target>/ to keep them.
# bench/fuzz.sh runs the same for a long time. Environment: WARPVOL_FUZZ_BUILD_DIR (default build-fuzz/).
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

seconds=15 runs="" corpus_root="" build_only=0 regress=1 keep_going=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --corpus) corpus_root=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --no-regress) regress=0; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "scripts/fuzz.sh: unknown option $1" >&2; exit 1 ;;
    *) targets+=("$1"); shift ;;
  esac
done

fuzz_build="${WARPVOL_FUZZ_BUILD_DIR:-$WARPVOL_ROOT/build-fuzz}"
src="$WARPVOL_ROOT/tests/fuzz"

warpvol_install_deps
if [ ! -f "$fuzz_build/CMakeCache.txt" ]; then
  cmake -S "$WARPVOL_ROOT" -B "$fuzz_build" -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DWARPVOL_FUZZ=ON \
    -DWARPVOL_ENABLE_GPU=OFF -DWARPVOL_BUILD_GUI=OFF -DWARPVOL_BUILD_TESTS=OFF </dev/null
fi
cmake --build "$fuzz_build" -j"$(nproc 2>/dev/null || echo 2)" --target fuzz </dev/null
[ "$build_only" = 1 ] && exit 0

if [ "${#targets[@]}" -eq 0 ]; then
  for f in "$src"/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
for t in "${targets[@]}"; do
  bin="$fuzz_build/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz $t: FAILED, no such target ($bin)"
    failed=1
    continue
  fi
  # Per-target libFuzzer options (OSS-Fuzz's .options format: "key = value" lines under [libfuzzer]).
  opts=(-timeout=10 -print_final_stats=1)
  if [ -f "$src/$t.options" ]; then
    while IFS='=' read -r k v; do
      k="${k// /}" v="${v// /}"
      [ -n "$k" ] && [ -n "$v" ] && opts+=("-$k=$v")
    done < <(grep -v '^\s*\(\[\|#\|$\)' "$src/$t.options")
  fi
  artifacts="$fuzz_build/fuzz-artifacts/$t"
  mkdir -p "$artifacts"
  opts+=("-artifact_prefix=$artifacts/")
  committed=()
  for d in "$src/corpus/$t" "$src/regress/$t"; do [ -d "$d" ] && committed+=("$d"); done
  status=ok
  ncommitted=0

  # 1. Every committed input once.
  if [ "$regress" = 1 ] && [ "${#committed[@]}" -gt 0 ]; then
    mapfile -t files < <(find "${committed[@]}" -type f | sort)
    ncommitted=${#files[@]}
    if [ "${#files[@]}" -gt 0 ] && ! "$bin" "${opts[@]}" "${files[@]}" >"$tmp/$t.regress.log" 2>&1; then
      status=FAILED
      echo "--- $t: a committed input fails; the end of its log:"
      tail -n 40 "$tmp/$t.regress.log"
    fi
  fi

  # 2. Fuzzing, starting from the committed inputs.
  execs=0 cov=0 ft=0 units=0 took=0
  if [ "$seconds" != 0 ]; then
    if [ -n "$corpus_root" ]; then work="$corpus_root/$t"; else work="$tmp/corpus-$t"; fi
    mkdir -p "$work"
    run_opts=("${opts[@]}" -max_total_time="$seconds")
    [ -n "$runs" ] && run_opts+=(-runs="$runs")
    [ "$keep_going" = 1 ] && run_opts+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    start=$(date +%s)
    if ! "$bin" "${run_opts[@]}" "$work" "${committed[@]}" >"$tmp/$t.fuzz.log" 2>&1; then
      status=FAILED
      echo "--- $t: the fuzzer found a failing input (in $artifacts/); the end of its log:"
      tail -n 40 "$tmp/$t.fuzz.log"
    fi
    took=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_\(of_\)\{0,1\}executed_units: *//p' "$tmp/$t.fuzz.log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$tmp/$t.fuzz.log" | grep -E 'cov: ' | tail -n 1 || true)
    # Fork mode and a run stopped by a crash print no final stats: the last status line counts the executions.
    [ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    units=$(find "$work" -type f | wc -l)
    cp "$tmp/$t.fuzz.log" "$fuzz_build/fuzz-artifacts/$t.log"
  fi
  crashes=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) -newer "$tmp" | wc -l)
  [ "$status" = FAILED ] && failed=1
  echo "fuzz $t: $status, $ncommitted committed inputs, ${execs:-0} executions in ${took} s, cov ${cov:-0}, ft ${ft:-0}, corpus ${units} units," \
    "${crashes} new crash inputs"
done
exit "$failed"
