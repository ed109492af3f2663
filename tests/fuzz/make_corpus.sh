#!/usr/bin/env bash
# Rewrites the committed seed corpora tests/fuzz/corpus/<target>/ (crash reproducers live in tests/fuzz/regress/
# and are kept). Needs the fuzz build (scripts/fuzz.sh --build-only) for fuzz_make_corpus, and mkfs.fat, mcopy,
# mkfs.ext4 for the outer-filesystem seeds. Usage: tests/fuzz/make_corpus.sh [BUILD_DIR]   (default build-fuzz)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build-fuzz}"
out="$root/tests/fuzz/corpus"
rm -rf "$out"
mkdir -p "$out"
"$build/fuzz/fuzz_make_corpus" "$out" "$root/testvectors"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/fuzz_outer_fs"
# fuzz_outer_fs input: u32 data-area size (little-endian) | the image's first HEAD bytes.
outer_seed() {
  local name=$1 img=$2 head=$3 size
  size=$(stat -c %s "$img")
  { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((size & 255)) $(((size >> 8) & 255)) $(((size >> 16) & 255)) \
      $(((size >> 24) & 255)))"; head -c "$head" "$img"; } > "$out/fuzz_outer_fs/$name"
}
printf 'some file content\n' > "$tmp/file.txt"
head -c 70000 /dev/zero | tr '\0' 'x' > "$tmp/big.txt"
fat_image() {  # name fat-bits KiB [mkfs.fat options]
  local name=$1 bits=$2 kib=$3
  shift 3
  mkfs.fat -F "$bits" -C "$tmp/$name.img" "$kib" "$@" >/dev/null
  mcopy -i "$tmp/$name.img" "$tmp/file.txt" "$tmp/big.txt" ::
}
fat_image fat12 12 1024
outer_seed fat12 "$tmp/fat12.img" 8192
fat_image fat16 16 16384
outer_seed fat16 "$tmp/fat16.img" 8192
fat_image fat32 32 40000 -s 1
outer_seed fat32 "$tmp/fat32.img" 20480
fat_image fat12-small 12 512
outer_seed fat12-small "$tmp/fat12-small.img" 4096
truncate -s 4M "$tmp/ext4.img"
mkfs.ext4 -q -F "$tmp/ext4.img"
outer_seed ext4 "$tmp/ext4.img" 2048
head -c 65536 /dev/zero > "$tmp/zero.img"
outer_seed no-filesystem "$tmp/zero.img" 1024
ls "$out" | while read -r t; do printf '%s: %s seeds\n' "$t" "$(ls "$out/$t" | wc -l)"; done
