#!/usr/bin/env bash
# Whole jobs next to the storage floors they are bound by, in one run: the folder's floors (dd, 8 MiB blocks: read
# one file, write a new file, copy into a new file, rewrite one file in place, each with 1..N streams on disjoint
# ranges; and N files written / rewritten at once), then every job -- export to stdout (redirected to /dev/null;
# bound by its readers or its engine: its floor is the lower of the read floor with its readers and the engine's
# decrypt figure from `warpvol benchmark`, pinned end to end for the GPU),
# export to a new file, create (full fill), import, reencrypt in place with checksum and with journal resilience, and
# a batch reencrypt of BATCH_N containers with --jobs BATCH_N -- with each engine, with the ratio to its floor and the
# CPU-seconds (user + sys; through the GPU agent, the agent's during the command too) per GB. GB/s = data bytes /
# wall time of the whole command / 1e9 (PIM 1, --hash and --encryption given: the KDF costs milliseconds; NAME_CHAIN).
# Re-encryption keeps the chain (fresh master keys): it decrypts and encrypts with the same chain.
#
# Usage: bench/jobs.sh [BUILD] [DIR] [SIZE] [CHAINS]
#   BUILD   folder with the warpvol binary (default build/); several joined by ':' run every job with each binary in
#           turn (alternating, so a drifting machine hits all alike): before/after comparisons in one run
#   DIR     folder for the containers (default /dev/shm)
#   SIZE    container size (default 1G)
#   CHAINS  space-separated chains (default "aes serpent twofish aes-twofish-serpent kuznyechik-serpent-camellia")
# Environment: ENGINES (default "cpu gpu auto" when the binary has a usable GPU engine, else "cpu auto"; AGENT=1 adds
#   "gpu+agent auto+agent": --engine gpu / auto while `warpvol gpu-agent` runs, started by this script with its own
#   socket, each row after one untimed run of the same command so that the agent's buffers exist, as they do for a
#   command that follows others; the other rows run with WARPVOL_GPU_AGENT=off), JOBS (default "export_null export_file
#   create import reenc_checksum reenc_journal batch"), STREAMS (floors' stream counts, default "1 4 N" with N =
#   min(cores, 16); the read floor also with READERS and GPU_READERS), BATCH_N (8), BATCH_SIZE (1G), READERS and
#   GPU_READERS (readers of one export on the CPU engine and on the GPU or auto, for its floor; default as the export
#   path: one per 4 cores, 2..8; with the GPU the cores less 6, from twice that up to 16), ROUNDS (runs per figure,
#   median, default 1; the engines of one job and build run in turn, round by round, in mirrored pairs of rounds (an
#   even number balances them), so that a drifting machine hits them alike), VERBOSE=1 (what auto did, from --verbose,
#   and the path it took where one writer bounds the job, against the row of that path), FLOORS (which floors to
#   measure, default "read write copy rewrite files"; a job whose floor is left out gets no ratio), CALIBRATE=1 (each
#   chain's `warpvol benchmark --calibrate` before its jobs: auto's crossover and the CPU engine's rates for one-writer
#   jobs as a calibrated machine has them, in XDG_CACHE_HOME; needs a GPU), LOGS (a folder: each timed run's stderr is
#   kept there as JOB.CHAIN.ENGINE.BUILD.rROUND.txt, with VERBOSE=1 the stage summaries of --verbose), AGENT_BUILD (a
#   folder: its agent serves the +agent rows of every build, which then alternate without restarting it: builds that are
#   one binary with different settings), BESIDE (default 1: each job's floor is measured again beside its rows, first in
#   a pair's first round and last in its second -- floor, cpu, gpu, auto, auto, gpu, cpu, floor, ... -- where FLOORS
#   names its kind, and the ratio is to the median of those runs, so that a host whose speed drifts during the run
#   (other tenants' memory traffic) is compared with itself; such a floor reads what the job reads, the container for
#   the exports and re-encryptions; 0: the ratio is to the floors measured at the start, of the image),
#   NAME_CHAIN (default 1; 0: the jobs that open a container -- exports, re-encryptions, the batch -- run without
#   --encryption, as a VeraCrypt user runs them: the command cannot know the chain before the header opens, so it
#   starts the GPU engine beside the KDF for any chain, engine_factory.h: prestart_gpu_engine).
# Output: a table on stdout, then auto against the better engine per job; rows also in $RESULTS (TSV, the 9th column
#   each round's GB/s, the 10th with VERBOSE=1 auto's path in each round) when set.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IFS=: read -ra builds <<< "${1:-$root/build}"
base=${2:-/dev/shm}
size_arg=${3:-1G}
chains=${4:-"aes serpent twofish aes-twofish-serpent kuznyechik-serpent-camellia"}
ncores=$(nproc)
nmax=$(( ncores < 16 ? ncores : 16 ))
streams=${STREAMS:-"1 4 $nmax"}
batch_n=${BATCH_N:-8}
batch_size_arg=${BATCH_SIZE:-1G}
# export's workers (core/job/stream.cpp: one per 4 cores, 2..8): its read floor is the one with as many streams
w=$(( ncores / 4 )); w=$(( w < 2 ? 2 : (w > 8 ? 8 : w) ))
readers=${READERS:-$w}
# Exports on the GPU engine read with the cores its 4 engine callers and the sink leave, at least twice as many,
# at most 16 (core/job/stream.h: default_ring_readers).
gpu_w=$(( ncores - 6 )); gpu_w=$(( gpu_w < 2 * w ? 2 * w : (gpu_w > 16 ? 16 : gpu_w) ))
gpu_readers=${GPU_READERS:-$gpu_w}
# The read floor also with the exports' reader counts (their floor); the other floors with STREAMS alone: 8 GiB
# written or rewritten once more per count and round would be time no ratio uses.
read_streams=$streams
for n in "$readers" "$gpu_readers"; do
  case " $read_streams " in *" $n "*) ;; *) read_streams="$read_streams $n" ;; esac
done
rounds=${ROUNDS:-1}
jobs=${JOBS:-"export_null export_file create import reenc_checksum reenc_journal batch"}

to_bytes() {
  local s=$1 n=${1%[KMGTkmgt]}
  case $s in
    *[Kk]) echo $((n << 10)) ;; *[Mm]) echo $((n << 20)) ;; *[Gg]) echo $((n << 30)) ;; *[Tt]) echo $((n << 40)) ;;
    *) echo "$n" ;;
  esac
}
size=$(to_bytes "$size_arg")
data=$((size - 262144))  # data area = container size - 256 KiB of headers (normal volume)
bsize=$(to_bytes "$batch_size_arg")
bdata=$((bsize - 262144))
blocks=$((size >> 23))   # 8 MiB blocks
bblocks=$((bsize >> 23))

dir=$(mktemp -d "$base/warpvol-jobs.XXXXXX") || exit 1
export WARPVOL_GPU_AGENT_SOCKET="$dir/agent/gpu-agent.sock"
agent_bin= agent_pid=
agent_stop() { [ -n "$agent_bin" ] && "$agent_bin/warpvol" gpu-agent stop > /dev/null 2>&1; agent_bin= agent_pid=; }
agent_use() {  # BUILD: the agent of that build runs (started warm: one job through it before timing)
  set -- "${AGENT_BUILD:-$1}"
  [ "$agent_bin" = "$1" ] && return
  agent_stop
  mkdir -p "$dir/agent" && chmod 700 "$dir/agent"
  # shellcheck disable=SC2086  # AGENT_ARGS: extra words for `gpu-agent start` (tests: --host-cpu-engine)
  agent_pid=$(WARPVOL_GPU_AGENT=off "$1/warpvol" gpu-agent start --idle-exit 0 ${AGENT_ARGS:-} --json |
              sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p') && [ -n "$agent_pid" ] && agent_bin=$1
}
# The agent's user and system CPU seconds so far (0 0 without one): a job through the agent has its engine's CPU
# time there, counted with the command's own.
agent_cpu() {
  local f
  if [ -n "${agent_pid:-}" ] && [ "${WARPVOL_GPU_AGENT:-}" = on ] && read -ra f < "/proc/$agent_pid/stat"; then
    # fields 14 and 15 (utime, stime, in clock ticks) counted after the parenthesised name, which holds no spaces
    calc "${f[13]} / $hz" && printf ' ' && calc "${f[14]} / $hz"
  else
    echo "0 0"
  fi
}
hz=$(getconf CLK_TCK)
trap 'agent_stop; rm -rf "$dir"' EXIT
err="$dir/err"
results=${RESULTS:-$dir/results.tsv}
: > "$results"
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
lower() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a < b ? a : b }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "machine: $ncores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); load $(cut -d' ' -f1-3 /proc/loadavg)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
echo "folder: $dir ($(df -T "$dir" | awk 'NR==2 {print $2}')); container $size_arg (data $data bytes); batch $batch_n x $batch_size_arg"
# (the binary's own date: a build carried to another machine need not match that machine's checkout)
for b in "${builds[@]}"; do echo "build: $b ($("$b/warpvol" --version 2>/dev/null | head -1), built $(date -u -r "$b/warpvol" '+%F %T UTC' 2>/dev/null))"; done

# ---- test data: a random image of the data area's size (1 GiB of urandom, repeated) ----
head -c $(( data < (1 << 30) ? data : (1 << 30) )) /dev/urandom > "$dir/rand1g"
: > "$dir/img"
left=$data
while [ "$left" -gt 0 ]; do
  n=$(( left < (1 << 30) ? left : (1 << 30) ))
  head -c "$n" "$dir/rand1g" >> "$dir/img"
  left=$((left - n))
done
rm -f "$dir/rand1g"

# ---- floors ----
declare -A floor
# gbs_of BYTES COMMAND...: GB/s of one run of COMMAND (which runs its streams in the background and waits).
gbs_of() {
  local bytes=$1 t0 t1
  shift
  sync; t0=$EPOCHREALTIME; "$@"; t1=$EPOCHREALTIME
  calc "$bytes / ($t1 - $t0) / 1e9"
}
# floor_run NAME BYTES COMMAND...: the median of ROUNDS runs.
floor_run() {
  local name=$1 bytes=$2 v=()
  shift 2
  for r in $(seq "$rounds"); do v+=("$(gbs_of "$bytes" "$@")"); done
  floor[$name]=$(median "${v[@]}")
  printf '  %-34s %7s GB/s\n' "$name" "${floor[$name]}"
}
# The file the read, copy and rewrite floors read: the image at the start; beside a job's rows, the file that job
# reads (its container for the exports and re-encryptions), since two files of the same bytes on one tmpfs can read
# far apart by where their pages came from (docs/perf/measurements-2026-12-05-session52.md).
floor_src=$dir/img
# N streams over one file, each on its own range of blocks. MODE: read | write | copy | rewrite
streams_one_file() {
  local mode=$1 n=$2 per=$(( (blocks + $2 - 1) / $2 )) k
  for ((k = 0; k < n; k++)); do
    case $mode in
      read) dd if="$floor_src" of=/dev/null bs=8M skip=$((k * per)) count=$per status=none & ;;
      write) dd if=/dev/zero of="$dir/new" bs=8M seek=$((k * per)) count=$per conv=notrunc,fsync status=none & ;;
      copy) dd if="$floor_src" of="$dir/new" bs=8M skip=$((k * per)) seek=$((k * per)) count=$per conv=notrunc,fsync status=none & ;;
      rewrite) dd if="$floor_src" of="$floor_src" bs=8M skip=$((k * per)) seek=$((k * per)) count=$per conv=notrunc,fsync status=none & ;;
    esac
  done
  wait
}
files_at_once() {  # MODE (write | rewrite) N [NAME]: N files of BATCH_SIZE at once, NAME a printf pattern (f%d)
  local mode=$1 n=$2 k f
  for ((k = 0; k < n; k++)); do
    # shellcheck disable=SC2059  # the pattern is the caller's
    f=$dir/$(printf "${3:-f%d}" "$k")
    case $mode in
      write) dd if=/dev/zero of="$f" bs=8M count=$bblocks conv=fsync status=none & ;;
      rewrite) dd if="$f" of="$f" bs=8M count=$bblocks conv=notrunc,fsync status=none & ;;
    esac
  done
  wait
}
# floor_once NAME: runs the floor NAME once (the names of the floors above) and prints its GB/s; fails for a name
# it cannot run again.
floor_once() {
  local name=$1 bytes n cmd
  case $name in
    "read one file x"*) n=${name#read one file x}; bytes=$data; cmd=(streams_one_file read "$n") ;;
    "write a new file x"*) n=${name#write a new file x}; bytes=$size; cmd=(streams_one_file write "$n") ;;
    "copy into a new file x"*) n=${name#copy into a new file x}; bytes=$data; cmd=(streams_one_file copy "$n") ;;
    "rewrite one file in place x"*) n=${name#rewrite one file in place x}; bytes=$data; cmd=(streams_one_file rewrite "$n") ;;
    # the batch's own containers, rewritten in place with their own bytes
    "$batch_n files rewritten in place") bytes=$((batch_n * bsize)); cmd=(files_at_once rewrite "$batch_n" "b%d.hc") ;;
    *) return 1 ;;
  esac
  rm -f "$dir/new"
  gbs_of "$bytes" "${cmd[@]}"
  rm -f "$dir/new"
}
floors=" ${FLOORS:-read write copy rewrite files} "
has_floor() { [ "${floors#* $1 }" != "$floors" ]; }
echo "floors (dd, 8 MiB blocks; N streams each on its own range):"
for n in $read_streams; do
  if has_floor read; then floor_run "read one file x$n" "$data" streams_one_file read "$n"; fi
  case " $streams " in *" $n "*) ;; *) continue ;; esac
  if has_floor write; then rm -f "$dir/new"; floor_run "write a new file x$n" "$size" streams_one_file write "$n"; fi
  if has_floor copy; then rm -f "$dir/new"; floor_run "copy into a new file x$n" "$data" streams_one_file copy "$n"; fi
  if has_floor rewrite; then rm -f "$dir/new"; floor_run "rewrite one file in place x$n" "$data" streams_one_file rewrite "$n"; fi
done
rm -f "$dir/new"
if has_floor files; then
  floor_run "$batch_n files written at once" $((batch_n * bsize)) files_at_once write "$batch_n"
  floor_run "$batch_n files rewritten in place" $((batch_n * bsize)) files_at_once rewrite "$batch_n"
fi
for ((k = 0; k < batch_n; k++)); do rm -f "$dir/f$k"; done

# ---- jobs ----
gpu_usable() { "$1/warpvol" benchmark --engine gpu --xts-only --size 1M --min-time 0.01 --encryption aes > /dev/null 2>&1; }
# wv BIN ARGS...: warpvol with the bench's credentials on stdin (a here-string: no process beside the job's own, whose
# start would count in its wall time)
wv() { local bin=$1; shift; "$bin/warpvol" "$@" --password-stdin --pim 1 -q <<< pw; }
# timed LABEL BYTES COMMAND...: prints "wall user sys" of the command (stdout to /dev/null, stderr to $err)
# (through the agent, user and sys include the agent's CPU time during the command)
timed() {
  local TIMEFORMAT='%R %U %S' wall user sys au0 as0 au1 as1
  read -r au0 as0 < <(agent_cpu)
  if { time "$@" > /dev/null 2> "$err"; } 2> "$dir/time"; then
    read -r wall user sys < "$dir/time"
    read -r au1 as1 < <(agent_cpu)
    echo "$wall $(calc "$user + $au1 - $au0") $(calc "$sys + $as1 - $as0")"
  else
    echo "FAILED: $*" >&2; sed 's/^/  /' "$err" >&2; echo "FAILED"
  fi
}
# The rows of one job, chain and build: each engine's command is added (add_row), then run_rows runs them in turn,
# round by round, so that a machine whose speed drifts between runs (10-20% from one run to the next on the GPU
# machines) hits every engine alike, and prints each engine's median. Rounds go in mirrored pairs, each pair one row
# further on (floor cpu gpu auto, auto gpu cpu floor; floor gpu auto cpu, cpu auto gpu floor; ...): within a pair
# each row runs once at an odd and once at an even place, and no row is always the one right after the floor's run.
rows_n=0
declare -A row_job row_chain row_engine row_build row_bytes row_fname row_clean row_cmd row_gbs row_cpus row_note \
  row_path
# add_row JOB CHAIN ENGINE BUILD BYTES FLOOR_NAME COMMAND... (clean=FILE: removed before each run, a new output)
add_row() {
  local i=$rows_n
  row_job[$i]=$1 row_chain[$i]=$2 row_engine[$i]=$3 row_build[$i]=$4 row_bytes[$i]=$5 row_fname[$i]=$6
  row_clean[$i]=${clean:-} row_gbs[$i]="" row_cpus[$i]="" row_note[$i]="" row_path[$i]=""
  shift 6
  row_cmd[$i]=$(printf '%q ' "$@")
  rows_n=$((i + 1))
}
engine_env() {  # ENGINE BUILD: a row through the agent runs with that build's agent, the others without one
  if [ "${1%+agent}" != "$1" ]; then agent_use "$2" && export WARPVOL_GPU_AGENT=on; else export WARPVOL_GPU_AGENT=off; fi
}
# The floor a row's ratio is taken against is measured by floor_once under its base name: an export's
# "min(read xN, ENGINE engine)" is "read one file xN", then the lower of that and the engine's figure.
floor_base() { case $1 in "min(read x"*) local n=${1#min(read x}; echo "read one file x${n%%,*}" ;; *) echo "$1" ;; esac; }
floor_kind() {  # NAME: its word in FLOORS
  case $1 in
    "read one file"*) echo read ;; "write a new file"*) echo write ;; "copy into"*) echo copy ;;
    "rewrite one file"*) echo rewrite ;; *) echo files ;;
  esac
}
declare -A beside floor_fig
run_beside() {  # FLOOR_NAME...: each floor once more, its figure added to beside[]
  local fb g
  for fb in "$@"; do
    if g=$(floor_once "$fb"); then beside[$fb]+=" $g"; fi
  done
}
run_rows() {
  local i j wall user sys round second pair fb of
  local -a bases=()
  beside=()
  if [ "${BESIDE:-1}" = 1 ]; then
    for ((i = 0; i < rows_n; i++)); do
      fb=$(floor_base "${row_fname[$i]}")
      has_floor "$(floor_kind "$fb")" || continue  # FLOORS left its kind out: no ratio
      case " ${bases[*]} " in *" $fb "*) ;; *) bases+=("$fb") ;; esac
    done
  fi
  for ((i = 0; i < rows_n; i++)); do  # warm: the agent makes its buffers for this kind of job
    [ "${row_engine[$i]%+agent}" != "${row_engine[$i]}" ] || continue
    engine_env "${row_engine[$i]}" "${row_build[$i]}" || { row_gbs[$i]=FAILED; continue; }
    [ -n "${row_clean[$i]}" ] && rm -f "${row_clean[$i]}"
    eval "timed ${row_cmd[$i]}" > /dev/null
  done
  for round in $(seq "$rounds"); do
    # Rounds go in mirrored pairs: the floors, then the rows in one order; the rows in the reverse order, then the
    # floors. In a pair every row and floor runs once at an odd and once at an even place, at the same mean place: a
    # host whose consecutive runs alternate fast and slow, or drift within the pair, hits every row alike. Each pair
    # starts one row further on than the pair before it, so no row always runs right after the floors.
    second=$(( (round - 1) % 2 )) pair=$(( (round - 1) / 2 ))
    [ "$second" = 0 ] && run_beside "${bases[@]}"
    for ((j = 0; j < rows_n; j++)); do
      if [ "$second" = 0 ]; then i=$(( (j + pair) % rows_n )); else i=$(( (rows_n - 1 - j + pair) % rows_n )); fi
      [ "${row_gbs[$i]}" = FAILED ] && continue
      engine_env "${row_engine[$i]}" "${row_build[$i]}"
      [ -n "${row_clean[$i]}" ] && rm -f "${row_clean[$i]}"  # each round writes its output anew
      read -r wall user sys < <(eval "timed ${row_cmd[$i]}")
      [ -n "${LOGS:-}" ] && mkdir -p "$LOGS" && cp "$err" "$LOGS/${row_job[$i]}.${row_chain[$i]}.${row_engine[$i]}.$(basename "${row_build[$i]}").r$round.txt"
      if [ "$wall" = FAILED ]; then row_gbs[$i]=FAILED; continue; fi  # no figure for a job that did not run
      row_gbs[$i]+=" $(calc "${row_bytes[$i]} / $wall / 1e9")"
      row_cpus[$i]+=" $(calc "($user + $sys) / (${row_bytes[$i]} / 1e9)")"
      if [ -n "${VERBOSE:-}" ] && [ "${row_engine[$i]%+agent}" = auto ]; then
        row_note[$i]=$(grep -m2 'engine auto,' "$err" | sed 's/ (each request.*//' | tr '\n' ' ')
        row_path[$i]+=" $(auto_path "$err")"
      fi
    done
    [ "$second" = 1 ] && run_beside "${bases[@]}"
  done
  for fb in "${bases[@]}"; do
    # shellcheck disable=SC2086  # the rounds' figures, one word each
    of=""; case $(floor_kind "$fb") in read|copy|rewrite) of=", of $(basename "$floor_src")" ;; esac
    [ -n "${beside[$fb]:-}" ] && printf '  beside these rows: %-34s %7s GB/s (runs:%s%s)\n' "$fb" "$(median ${beside[$fb]})" "${beside[$fb]}" "$of"
  done
  for ((i = 0; i < rows_n; i++)); do
    print_row "$i"
    [ -n "${row_clean[$i]}" ] && rm -f "${row_clean[$i]}"
  done
  rows_n=0
}
# auto_path LOG: the path auto's --verbose says a job bound by one writer took (core/engine/auto_engine.cpp,
# AutoEngine::cpu_job): cpu (the CPU engine took the whole job), gpu (the GPU took part), - (no such decision: the
# job split its requests between the engines, or was too small for the GPU).
auto_path() {
  if grep -q 'engine auto: the job writes one file.*it takes the whole job' "$1"; then echo cpu
  elif grep -q 'engine auto: the job writes one file.*the GPU takes part' "$1"; then echo gpu
  else echo -; fi
}
print_row() {
  local i=$1 job=${row_job[$1]} chain=${row_chain[$1]} engine=${row_engine[$1]} b=${row_build[$1]} g c f fb pct=-
  local name; name=$(basename "$(dirname "$b/x")")
  if [ "${row_gbs[$i]}" = FAILED ]; then
    printf '%-15s %-28s %-10s %-10s FAILED\n' "$job" "$chain" "$engine" "$name"
    printf '%s\t%s\t%s\t%s\tFAILED\n' "$job" "$chain" "$engine" "$b" >> "$results"
    return
  fi
  # shellcheck disable=SC2086  # the rounds' figures, one word each
  { g=$(median ${row_gbs[$i]}); c=$(median ${row_cpus[$i]}); }
  f=${floor[${row_fname[$i]}]:-}
  fb=$(floor_base "${row_fname[$i]}")
  if [ -n "${beside[$fb]:-}" ]; then  # measured beside the rows: its median, below the engine's figure if it has one
    # shellcheck disable=SC2086  # the rounds' figures, one word each
    f=$(median ${beside[$fb]})
    [ -n "${floor_fig[${row_fname[$i]}]:-}" ] && f=$(lower "$f" "${floor_fig[${row_fname[$i]}]}")
  fi
  [ -n "$f" ] && pct="$(calc "100 * $g / $f")%"  # no floor: FLOORS left it out
  printf '%-15s %-28s %-10s %-10s %7s GB/s  %5s of %-32s %6s CPU-s/GB %s\n' "$job" "$chain" "$engine" "$name" \
    "$g" "$pct" "${row_fname[$i]} (${f:--})" "$c" "${row_note[$i]}"
  # (the 9th column: each round's GB/s in order, for the round-by-round ratios below; the 10th, with VERBOSE, the
  # path auto took in each round: auto_path)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$job" "$chain" "$engine" "$b" "$g" "$f" "${row_fname[$i]}" \
    "$c" "${row_gbs[$i]# }" "${row_path[$i]# }" >> "$results"
}
vflag=(); [ -n "${VERBOSE:-}" ] && vflag=(--verbose)
# engine_figure BUILD CHAIN ENGINE PATH: the engine's decrypt GB/s for the chain from `warpvol benchmark --json`
# (cpu: PATH host, every core; gpu: PATH pinned, end to end from page-locked host memory over 1 GiB).
engine_figure() {
  WARPVOL_GPU_AGENT=off "$1/warpvol" benchmark --engine "$3" --xts-only --encryption "$2" --min-time 0.2 --json \
      2>/dev/null |
    awk -F': ' -v e="$3" -v p="$4" '/"decrypt_MBps"/ { d = $2 + 0 } /"engine":/ { gsub(/[",]/, "", $2); en = $2 }
      /"path"/ { gsub(/[",]/, "", $2); pa = $2 } /^  }/ { if (en == e && pa == p) printf "%.2f", d / 1000 }'
}
# The export to /dev/null is bound by its readers or by its engine: its floor is min(read floor with the job's
# readers, the engine's figure), per chain (the issue's definition; auto's engine figure is the GPU's).
export_floor() {  # CHAIN ENGINE(cpu|gpu) READERS: sets floor["min(read xN, ENGINE engine)"], prints it
  local chain=$1 e=$2 nr=$3 fig name read
  name="min(read x$nr, $e engine)"
  read=${floor["read one file x$nr"]:-}
  if [ "$e" = cpu ]; then fig=$(engine_figure "$first" "$chain" cpu host); else fig=$(engine_figure "$first" "$chain" gpu pinned); fi
  if [ -z "$read" ] || [ -z "$fig" ]; then unset "floor[$name]"; return; fi
  floor_fig[$name]=$fig
  floor[$name]=$(lower "$read" "$fig")
  printf '  %-34s %7s GB/s (%s engine, %s: %s GB/s)\n' "$name" "${floor[$name]}" "$e" "$chain" "$fig"
}

echo
echo "jobs (GB/s of data, % of the floor it is bound by, CPU-seconds user+sys per GB):"
for chain in $chains; do
  first=${builds[0]}
  # Full creates, not --quick: a sparse container's first rewrite allocates its pages, which would slow whichever
  # engine's row comes first, and reading holes is faster than reading data.
  wv "$first" create "$dir/v.hc" --size "$size_arg" --encryption "$chain" --hash sha512 --force --filesystem none > /dev/null 2>&1
  if [ "${CALIBRATE:-0}" = 1 ]; then  # as a user who ran it once has them (XDG_CACHE_HOME: where they are kept)
    if WARPVOL_GPU_AGENT=off "$first/warpvol" benchmark --calibrate --encryption "$chain" > "$dir/calibrate" 2>&1; then
      sed -n -e 's/^ *\(cpu engine at .*\)/  calibrated, '"$chain"': \1/p' \
        -e 's/^ *\(crossover: .*\)/  calibrated, '"$chain"': \1/p' "$dir/calibrate"
    else
      echo "  calibration of $chain failed: $(tail -n 1 "$dir/calibrate")"
    fi
  fi
  if [ "${jobs#*export_null}" != "$jobs" ]; then
    echo "floors of the export to /dev/null, $chain:"
    export_floor "$chain" cpu "$readers"
    if WARPVOL_GPU_AGENT=off gpu_usable "$first"; then export_floor "$chain" gpu "$gpu_readers"; fi
  fi
  have_batch=
  for job in $jobs; do
    case $job in export_*|reenc_*) floor_src=$dir/v.hc ;; *) floor_src=$dir/img ;; esac
    for b in "${builds[@]}"; do
      engines=${ENGINES:-}
      if [ -z "$engines" ]; then
        if WARPVOL_GPU_AGENT=off gpu_usable "$b"; then engines="cpu gpu auto"; else engines="cpu auto"; fi
        [ -n "${AGENT:-}" ] && engines="$engines gpu+agent auto+agent"
      fi
      for e in $engines; do
        if ! engine_env "$e" "$b"; then echo "$job $chain $e: the GPU agent did not start" >&2; continue; fi
        o=(--engine "${e%+agent}" "${vflag[@]}")
        named=(--encryption "$chain"); [ "${NAME_CHAIN:-1}" = 0 ] && named=()
        case $job in
          export_null)
            nr=$readers ee=cpu; [ "$e" = cpu ] || nr=$gpu_readers ee=gpu
            fn="min(read x$nr, $ee engine)"; [ -n "${floor[$fn]:-}" ] || fn="read one file x$nr"
            add_row "$job" "$chain" "$e" "$b" "$data" "$fn" \
              wv "$b" export "$dir/v.hc" - --hash sha512 "${named[@]}" "${o[@]}" ;;  # (timed: stdout to /dev/null)
          export_file)
            clean="$dir/out.raw" add_row "$job" "$chain" "$e" "$b" "$data" "copy into a new file x1" \
              wv "$b" export "$dir/v.hc" "$dir/out.raw" --hash sha512 "${named[@]}" "${o[@]}" ;;
          create)
            clean="$dir/c.hc" add_row "$job" "$chain" "$e" "$b" "$data" "write a new file x1" \
              wv "$b" create "$dir/c.hc" --size "$size_arg" --encryption "$chain" --hash sha512 --force --filesystem none "${o[@]}" ;;
          import)
            clean="$dir/c.hc" add_row "$job" "$chain" "$e" "$b" "$data" "copy into a new file x1" \
              wv "$b" import "$dir/img" "$dir/c.hc" --encryption "$chain" --hash sha512 --force "${o[@]}" ;;
          reenc_checksum|reenc_journal)
            add_row "$job" "$chain" "$e" "$b" "$data" "rewrite one file in place x1" \
              wv "$b" reencrypt "$dir/v.hc" --hash sha512 "${named[@]}" --no-hidden-volume \
                --resilience "${job#reenc_}" "${o[@]}" ;;
          batch)
            if [ -z "$have_batch" ]; then
              for ((k = 0; k < batch_n; k++)); do
                wv "$first" create "$dir/b$k.hc" --size "$batch_size_arg" --encryption "$chain" --hash sha512 --force --filesystem none > /dev/null 2>&1
              done
              have_batch=1
            fi
            bl=(); for ((k = 0; k < batch_n; k++)); do bl+=("$dir/b$k.hc"); done
            add_row "$job" "$chain" "$e" "$b" $((batch_n * bdata)) "$batch_n files rewritten in place" \
              wv "$b" reencrypt "${bl[@]}" --hash sha512 "${named[@]}" --no-hidden-volume --jobs "$batch_n" "${o[@]}" ;;
        esac
      done
      run_rows
    done
  done
  rm -f "$dir"/b*.hc
done

# auto against the better of cpu and gpu, per job, chain and build: the ratio of the medians, and with several rounds
# the median of the pairs' own ratios (auto's two runs in a mirrored pair of rounds against the better of the cpu and
# gpu rows' two, each the geometric mean of its pair): a host whose speed drifts from round to round moves the
# medians apart, not the pairs' ratios, and one whose consecutive runs alternate fast and slow gives every row of a
# pair one of each.
echo
echo "auto / best of (cpu, gpu):"
awk -F'\t' '
  function isort(a, n,   i, j, t) {  # a[1..n] in place: numbers as numbers, the keys as strings
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  }
  function median(a, n) {
    isort(a, n)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  # The geometric mean of the pair of rounds from round i (the last round alone where n is odd)
  function pair_mean(r, i, n) { return i < n ? sqrt(r[i] * r[i + 1]) : r[i] + 0 }
  function compare(k, a, g, label,   best, n, na, nc, ng, i, m, x, y, rs, ra, rc, rg, paired, pct, shown) {
    best = v[k, "cpu"] > v[k, g] ? v[k, "cpu"] : v[k, g]
    pct = 100 * v[k, a] / best
    na = split(runs[k, a], ra, " "); nc = split(runs[k, "cpu"], rc, " "); ng = split(runs[k, g], rg, " ")
    n = na < ng ? na : ng
    if ((k, "cpu") in v && nc < n) n = nc
    shown = ""
    if (n >= 2) {
      m = 0
      for (i = 1; i <= n; i += 2) {
        x = pair_mean(rc, i, n); y = pair_mean(rg, i, n)
        rs[++m] = 100 * pair_mean(ra, i, n) / (x > y ? x : y)
      }
      paired = median(rs, m)
      shown = sprintf("; pair by pair %5.1f%% (median of %d pair%s of rounds)", paired, m, (m > 1 ? "s" : ""))
      pct = paired
    }
    printf "  %-60s %s %6.2f, %s %6.2f: %5.1f%%%s%s\n", k, a, v[k, a], label, best, 100 * v[k, a] / best, shown,
           pct < 95 ? "  (more than 5% below)" : ""
    same_path(k, a, g, ra, rc, rg, n)
  }
  # With VERBOSE, where auto gave a job bound by one writer to one engine: the path it took in each round, the
  # better engine by the medians, and auto against the row of the path it took in the same round. That row runs the
  # same code, so their spread is the noise of the rounds, apart from which engine auto chose.
  function same_path(k, a, g, ra, rc, rg, n,   np, p, i, m, ncpu, ngpu, rs, lead, other) {
    np = split(path[k, a], p, " ")
    if (np < n) n = np
    ncpu = ngpu = m = 0
    for (i = 1; i <= n; i++) {
      if (p[i] == "cpu" && rc[i] > 0) { ncpu++; rs[++m] = 100 * ra[i] / rc[i] }
      else if (p[i] == "gpu" && rg[i] > 0) { ngpu++; rs[++m] = 100 * ra[i] / rg[i] }
    }
    if (!m) return
    lead = v[k, "cpu"] >= v[k, g] ? "cpu" : g; other = lead == "cpu" ? g : "cpu"
    printf "      %s took cpu in %d and gpu in %d of %d rounds; the better by the medians: %s, by %.1f%%; against " \
           "the row of the path it took, round by round %5.1f%%\n", a, ncpu, ngpu, n, lead,
           (v[k, other] > 0 ? 100 * (v[k, lead] / v[k, other] - 1) : 0), median(rs, m)
  }
  $5 == "FAILED" { next }
  { k = $1 " " $2 " " $4; v[k, $3] = $5; runs[k, $3] = $9; path[k, $3] = $10; keys[k] = 1 }
  END {
    for (k in keys) ks[++nk] = k
    isort(ks, nk)  # in the order of the keys (job, chain, build), each with its path line below it
    for (i = 1; i <= nk; i++) {
      k = ks[i]
      if ((k, "auto") in v && (k, "gpu") in v) compare(k, "auto", "gpu", "best")
      if ((k, "auto+agent") in v && (k, "gpu+agent") in v)
        compare(k, "auto+agent", "gpu+agent", "best of cpu and gpu+agent")
    }
  }' "$results"
