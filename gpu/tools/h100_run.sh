#!/bin/bash
# Runs the GPU engine's checks and benchmarks on a machine with an NVIDIA GPU, from binaries built elsewhere and
# carried as build-gpu-run/bins.tar.xz together with their build's CMakeCache.txt (see gpu/NOTES.md). Usage:
# gpu/tools/h100_run.sh STEP... Steps: info, topology, clock, capacity, tests, cputests (start in the background;
# `cpuwait` waits), sanitize, wvbench, calibrate, ablation, bench, cpubench, scaling, kernels, roundtrip, sweep,
# variants, sass, jobs. Results go to $OUT (at most 8 files come back).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/wv
ROOT=$PWD
tar -C /tmp/wv -xJf build-gpu-run/bins.tar.xz || exit 1
# The test binary looks for testvectors/ and the warpvol binary in the source and build folders it was built in;
# the carried CMakeCache.txt names them, and they are recreated here (the source folder as a link to this checkout).
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' /tmp/wv/CMakeCache.txt 2>/dev/null)
bin=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' /tmp/wv/CMakeCache.txt 2>/dev/null)
[ -n "$src" ] && [ -n "$bin" ] || { echo "bins.tar.xz carries no CMakeCache.txt (see gpu/NOTES.md)"; exit 1; }
[ -e "$src/testvectors" ] || { mkdir -p "$(dirname "$src")" && ln -sfn "$ROOT" "$src"; }
mkdir -p "$bin" && cp /tmp/wv/warpvol "$bin/warpvol"
cd /tmp/wv
export XDG_CACHE_HOME=/tmp/xdg
# The CPU engine's tags (ciphers, SIMD paths, XTS, cascades, hashes, KDFs, self-test): the AVX-512/GFNI/VAES paths.
CPU_TAGS='[simd],[aes],[serpent],[twofish],[camellia],[kuznyechik],[xts],[cascade],[cipher],[crc],[hash],[hmac],[selftest],[emulation],[streebog],[pbkdf2],[kdf],[argon2],[batch],[benchmark],[random]'
cpu_pid=
for step in "$@"; do
  echo "=== $step $(date +%T)"
  case $step in
    info)
      ldd --version | head -1
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
      grep -m1 "model name" /proc/cpuinfo; nproc
      grep -m1 -o -w -E "avx512f|vaes|gfni|vpclmulqdq" /proc/cpuinfo | sort -u | tr '\n' ' '; echo ;;
    tests)
      timeout 150 ./warpvol_tests "[gpu]" --durations yes > "$OUT/tests.txt" 2>&1
      echo "rc=$?"; grep -aE "^(test cases|assertions)|FAILED|All tests|skipped" "$OUT/tests.txt" | tail -6
      grep -aE "^[0-9.]+ s: " "$OUT/tests.txt" | sort -rn | head -8 ;;
    cputests)
      (timeout 200 ./warpvol_tests "$CPU_TAGS" --durations yes > "$OUT/cputests.txt" 2>&1; echo "rc=$?" >> "$OUT/cputests.txt") &
      cpu_pid=$! ;;
    cpuwait)
      [ -n "$cpu_pid" ] && wait "$cpu_pid"
      grep -aE "^(test cases|assertions)|FAILED|All tests|^rc=" "$OUT/cputests.txt" | tail -5 ;;
    sanitize)
      timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./warpvol_tests "[sanitize]" > "$OUT/san_memcheck.txt" 2>&1
      echo "memcheck rc=$?"; tail -3 "$OUT/san_memcheck.txt"
      # racecheck is far slower than memcheck: the subset's multi-chunk runs shrink to 40 units (WARPVOL_TEST_SMALL).
      WARPVOL_TEST_SMALL=1 timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 ./warpvol_tests "[sanitize]" > "$OUT/san_racecheck.txt" 2>&1
      echo "racecheck rc=$?"; tail -3 "$OUT/san_racecheck.txt" ;;
    wvbench)
      # WVBENCH_ENGINE (default all): kernel-only + pinned + pageable (1 GiB), the GPU through the engine interface, and
      # all 16 CPU cores.
      timeout 150 ./warpvol benchmark --engine "${WVBENCH_ENGINE:-all}" --xts-only --json > "$OUT/wvbench.json" 2> "$OUT/wvbench.err"
      echo "rc=$?"; tail -2 "$OUT/wvbench.err" ;;
    calibrate)
      timeout 90 ./warpvol benchmark --calibrate --min-time 0.15 > "$OUT/calibrate.txt" 2>&1
      echo "rc=$?" >> "$OUT/calibrate.txt"; cat "$XDG_CACHE_HOME/warpvol/crossover.json" >> "$OUT/calibrate.txt"
      for sz in 64K 64M; do  # auto below / above Serpent's crossover: CPU-like, then GPU-like MB/s
        ./warpvol benchmark --verbose --engine auto --size $sz --min-time 0.3 --xts-only --encryption serpent >> "$OUT/calibrate.txt" 2>&1
      done
      cat "$OUT/calibrate.txt" ;;
    variants)
      # Calibration (CPU vs GPU per request size) of the chains in VARIANT_CHAINS under each engine setting in
      # VARIANTS ("default" or space-free VAR=value lists joined by commas), to compare small-request settings.
      for v in ${VARIANTS:-default}; do
        env_args=(); [ "$v" = default ] || IFS=, read -ra env_args <<< "$v"
        for c in ${VARIANT_CHAINS:-serpent}; do
          echo "--- $v $c: $(env "${env_args[@]}" timeout 30 ./warpvol benchmark --calibrate --min-time ${VARIANT_TIME:-0.1} --encryption "$c" 2>&1 | grep -E '^  [A-Z]|crossover:' | tr -s ' ' | tr '\n' ' ')"
        done
      done 2>&1 | tee "$OUT/variants.txt" ;;
    ablation)
      timeout 60 ./gpu_ablation 1024 > "$OUT/gpubench.txt" 2>&1; cat "$OUT/gpubench.txt" ;;
    bench)
      timeout 120 ./gpu_bench 1024 1024 5 2>&1 | tee -a "$OUT/gpubench.txt" ;;
    cpubench)
      { echo "--- warpvol benchmark --engine cpu --threads 1 --json"
        timeout 60 ./warpvol benchmark --engine cpu --threads 1 --json
        echo "--- warpvol benchmark --engine cpu --threads 16 --xts-only --json"
        timeout 40 ./warpvol benchmark --engine cpu --threads 16 --xts-only --json
        echo "--- openssl speed -evp aes-256-xts -bytes 512 -seconds 2"
        command -v openssl && openssl version && timeout 20 openssl speed -evp aes-256-xts -bytes 512 -seconds 2 2>&1 | tail -3
      } > "$OUT/cpubench.txt" 2>&1; echo "rc=$?"; grep -c '"kind"' "$OUT/cpubench.txt"; tail -3 "$OUT/cpubench.txt" ;;
    topology)  # cores against hardware threads: "all cores vs one core" counts cores
      lscpu | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA node\(s\)|L1d|L2|L3|CPU max MHz|Hypervisor)"
      echo "cpu0 siblings: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)" ;;
    scaling)  # the CPU engine at 1 thread and at every core, per request size (all cores vs one core);
      # SCALING_ROUNDS > 1 alternates the thread counts that many times, so a drifting clock hits both alike.
      for size in ${SCALING_SIZES:-1M 4M 32M}; do for c in ${SCALING_CHAINS:-aes serpent twofish camellia kuznyechik aes-twofish-serpent}; do
        for r in $(seq "${SCALING_ROUNDS:-1}"); do for t in 1 $(nproc); do
          echo "$size $t $(timeout 30 ./warpvol benchmark --engine cpu --xts-only --encryption $c --threads $t --size $size --min-time 0.3 --json | tr -d '\n ')"
        done; done; done; done > "$OUT/scaling.txt" 2>&1
      echo "rc=$?"; wc -l < "$OUT/scaling.txt" ;;
    clock)  # the core clock with one core busy and with every core busy (bench/clock_probe.cpp), twice
      timeout 30 ./clock_probe 1 1 "$(nproc)" 1 "$(nproc)" | tee "$OUT/clock.txt" ;;
    capacity)  # the engine on every core against as many independent one-thread processes (bench/engine_scaling.sh)
      timeout 400 bash "$ROOT/bench/engine_scaling.sh" /tmp/wv "${CAPACITY_CHAINS:-aes serpent twofish camellia kuznyechik aes-twofish-serpent}" \
        "${CAPACITY_ROUNDS:-2}" > "$OUT/capacity.txt" 2>&1
      echo "rc=$?"; cat "$OUT/capacity.txt" ;;
    kernels)  # per-kernel XTS throughput on one core, every path this CPU runs (cipher_xts_bench, aes_xts_bench)
      { timeout 60 ./cipher_xts_bench 0.3 5; timeout 40 ./aes_xts_bench 2 1024 5; } > "$OUT/kernels.txt" 2>&1
      echo "rc=$?"; cat "$OUT/kernels.txt" ;;
    roundtrip)  # import a random image with each engine, export with each: every export must give the image back
      d=$(mktemp -d /dev/shm/wv-rt.XXXXXX); head -c 512M /dev/urandom > "$d/img"
      want=$(sha256sum < "$d/img" | cut -c1-64)
      for c in ${ROUNDTRIP_CHAINS:-aes serpent twofish aes-twofish-serpent}; do for ce in cpu gpu; do
        printf 'roundtrip pw\n' | ./warpvol import "$d/img" "$d/v.hc" --encryption "$c" --engine "$ce" --pim 1 \
          --password-stdin --force -q > /dev/null || echo "import $c --engine $ce: exit $?"
        for ee in cpu gpu; do
          got=$(printf 'roundtrip pw\n' | ./warpvol export "$d/v.hc" - --engine "$ee" --pim 1 --password-stdin -q |
            head -c 536870912 | sha256sum | cut -c1-64)
          [ "$got" = "$want" ] && r=same || r=DIFFERENT
          echo "$c: import --engine $ce, export --engine $ee: $r"
        done
      done; done 2>&1 | tee "$OUT/roundtrip.txt"
      rm -rf "$d" ;;
    sweep)
      for t in 8 16; do for c in 16 32 64; do
        echo "copy_threads=$t chunk=${c}MiB: $(WARPVOL_GPU_COPY_THREADS=$t WARPVOL_GPU_CHUNK_MB=$c GPU_BENCH_CHAINS=serpent,aes GPU_BENCH_NO_KERNEL=1 timeout 20 ./gpu_bench 0 1024 3 2>&1 | grep -E '^  (AES|Serpent) ' | tr -s ' ' | tr '\n' ';')"
      done; done 2>&1 | tee "$OUT/sweep.txt" ;;
    jobs)  # whole jobs next to the storage floors of /dev/shm, every engine (bench/jobs.sh); JOBS_BUILDS: binaries'
      # folders joined by ':' (before/after in one run), JOBS_SIZE (container), JOBS_CHAINS, JOBS_AGENT=0 (no rows
      # through a warm `warpvol gpu-agent`)
      RESULTS="$OUT/jobs.tsv" VERBOSE=1 STREAMS="1 4 16" AGENT="$([ "${JOBS_AGENT:-1}" = 0 ] || echo 1)" timeout "${JOBS_TIMEOUT:-560}" bash "$ROOT/bench/jobs.sh" \
        "${JOBS_BUILDS:-/tmp/wv}" /dev/shm "${JOBS_SIZE:-8G}" \
        "${JOBS_CHAINS:-aes serpent twofish aes-twofish-serpent kuznyechik-serpent-camellia}" 2>&1 | tee "$OUT/jobs.txt" ;;
    sass)
      cuobjdump -sass ./gpu_bench 2>/dev/null | xz -3 > "$OUT/sass.txt.xz"; ls -la "$OUT/sass.txt.xz" ;;
  esac
done
echo "=== done $(date +%T)"
