#!/usr/bin/env bash
# Re-encryption in place by resilience mode next to the in-place rewrite floor of the same file, for two builds
# side by side (before/after a change): per round, in turn and alternating the builds' order, `warpvol reencrypt`
# with --resilience journal and --resilience checksum of each build, and `dd if=V of=V bs=8M conv=notrunc,fsync`
# (the single-file in-place rewrite floor). Throughput = data-area bytes / wall time of the whole command (PIM 1,
# --hash/--encryption given: the KDF costs milliseconds). Prints every round and the medians with the ratio to the
# floor's median, and the CPU-seconds (user + sys) of each command: on a small shared machine the wall time follows
# the load, the CPU time much less.
# Usage: bench/reencrypt_journal.sh BIN_BEFORE BIN_AFTER [FOLDER] [SIZE (1G)] [ROUNDS (3)] [CHAIN (aes)]
#        (FOLDER default: /dev/shm, else $TMPDIR)
set -euo pipefail
before=${1:?warpvol binary before}
after=${2:?warpvol binary after}
base=${3:-}
if [ -z "$base" ]; then base=${TMPDIR:-/tmp}; [ -w /dev/shm ] && base=/dev/shm; fi
size=${4:-1G}
rounds=${5:-3}
chain=${6:-aes}
dir=$(mktemp -d "$base/warpvol-reenc-journal.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
v="$dir/v.hc"

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'pw\n' | "$after" create --filesystem none "$v" --size "$size" --encryption "$chain" --hash sha512 --pim 1 \
  --password-stdin -q > /dev/null
data=$(( $(stat -c %s "$v") - 262144 ))
echo "folder: $dir ($(df -T "$dir" | awk 'NR==2 {print $2}')); $chain; data area $data bytes; $rounds rounds"

reenc() {  # binary resilience -> "GB/s CPU-seconds" (user + sys of the command: bash's time keyword)
  local TIMEFORMAT='%R %U %S' wall user sys
  { time (printf 'pw\n' | "$1" reencrypt "$v" --password-stdin --pim 1 --hash sha512 --encryption "$chain" \
      --no-hidden-volume --resilience "$2" --engine cpu -q > /dev/null 2>&1); } 2> "$dir/time"
  read -r wall user sys < "$dir/time"
  echo "$(calc "$data / $wall / 1e9") $(calc "$user + $sys")"
}
floor() {
  local t0 t1
  t0=$(now)
  dd if="$v" of="$v" bs=8M conv=notrunc,fsync status=none
  t1=$(now)
  calc "$(stat -c %s "$v") / ($t1 - $t0) / 1e9"
}

declare -A res cpu
for r in $(seq "$rounds"); do
  order="before after"; [ $((r % 2)) = 0 ] && order="after before"
  line="round $r:"
  f=$(floor); res[floor]+="$f "; line+=" floor $f"
  for b in $order; do
    bin=$before; [ "$b" = after ] && bin=$after
    for m in journal checksum; do
      read -r x c < <(reenc "$bin" "$m")
      res[$b-$m]+="$x "; cpu[$b-$m]+="$c "; line+=" $b-$m $x ($c CPU-s)"
    done
  done
  echo "$line (GB/s)"
done
median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
fl=$(median "${res[floor]}")
echo "median: in-place rewrite floor (dd) $fl GB/s"
for k in before-journal before-checksum after-journal after-checksum; do
  m=$(median "${res[$k]}")
  echo "median: $k $m GB/s = $(calc "100 * $m / $fl")% of the floor; $(median "${cpu[$k]}") CPU-s (user + sys)"
done
