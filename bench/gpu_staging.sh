#!/usr/bin/env bash
# Runs bench/gpu_staging.cu's staging designs side by side, round by round, on random data in DIR (default
# /dev/shm): one file of SIZE GiB split between the threads (export's shape) and 8 files of 1 GiB rewritten in
# place (the batch's shape). KERNEL_GBS (environment, passed on) makes the GPU's work as slow as a chain's.
# Usage: bench/gpu_staging.sh [DIR] [SIZE_GiB] [ROUNDS]
set -euo pipefail
dir=${1:-/dev/shm}; size=${2:-8}; rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/gpu_staging
nvcc -O2 -arch=sm_90 -o "$bin" "$here/gpu_staging.cu"
fill() { # FILE GiB: random bytes, 8 writers at once
  local i; for ((i = 0; i < 8; i++)); do
    dd if=/dev/urandom of="$1" bs=1M count=$(($2 * 128)) seek=$((i * $2 * 128)) conv=notrunc status=none &
  done; wait; }
fill "$dir/staging.img" "$size"
for ((t = 0; t < 8; t++)); do fill "$dir/staging$t.img" 1; done
lscpu | grep -E 'Model name|^CPU\(s\)|L3'
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
one="$dir/staging.img"; many="$dir/staging%d.img"
# (MODE THREADS CHUNK_MiB D E): requests in flight (4, 8, 16 threads of one), a deeper ring (D = 3), shared streams,
# a second ring for the results, the GPU copying from the file's own pages (mapped), each chunk sent piece by piece
# as it is read (pieces); then the batch's shape.
export_runs=(
  "floor 8 8 1 1 $one null" "read 8 4 3 3 $one null"
  "inplace 4 4 1 1 $one null" "inplace 8 4 1 1 $one null" "inplace 16 4 1 1 $one null" "inplace 8 4 3 3 $one null"
  "inplace 16 4 2 2 $one null" "pieces 8 4 3 3 $one null" "pieces 16 4 2 2 $one null"
  "pipe 16 4 1 1 $one null" "outofplace 8 4 3 2 $one null" "nod2h 8 4 3 3 $one null" "mapped 8 4 3 3 $one null")
batch_runs=(
  "floor 8 8 1 1 $many back" "inplace 8 4 3 3 $many back" "outofplace 8 4 3 2 $many back"
  "outofplace 8 2 4 2 $many back" "mapped 8 4 3 3 $many back" "mapped 8 16 3 3 $many back")
for ((r = 1; r <= rounds; r++)); do
  echo "# round $r"
  for a in "${export_runs[@]}" "${batch_runs[@]}"; do "$bin" $a; done
  for k in hostalloc thp memfd; do echo -n "PINNED=$k "; PINNED=$k "$bin" inplace 16 4 1 1 "$one" null; done
done
rm -f "$dir"/staging*.img
