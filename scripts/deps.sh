# shellcheck shell=bash
# warpvol's Debian/Ubuntu packages -- the ONE list, sourced by scripts/run.sh and scripts/test.sh.
#   build:   build-essential cmake pkg-config libcrypto++-dev libboost-program-options-dev catch2 libargon2-dev libxxhash-dev
#            libssl-dev nlohmann-json3-dev libfuse3-dev
#   run:     fuse3 (mount); exfatprogs ntfs-3g (create --filesystem exfat|ntfs; ntfs-3g also mounts NTFS where the
#            kernel has no driver) exfat-fuse (mounts exFAT where the kernel has none)
#   tests:   mtools dosfstools e2fsprogs fio fusefat python3-botan (the independent oracles: tests/oracle/)
#            xvfb xauth (xvfb-run needs it; only a Recommends of xvfb) desktop-file-utils
#            dbus-daemon (a private system bus for the GUI's udisks2 test)
#            python3-venv (scripts/fleet-venv.sh: warpvol-fleet's venv, Ray pinned in fleet/pyproject.toml, from PyPI)
#            python3 (ctest's generated.files reruns the Python generators of tools/gen/)
#   GUI:     qt6-base-dev qt6-charts-dev libqt6opengl6-dev (Qt6Charts' CMake package needs it; with
#            --no-install-recommends nothing pulls it in) libqt6svg6 (the icons) qt6-qpa-plugins (the window)
#   package: dpkg-dev file (dpkg-shlibdeps for the .deb's Depends; CPack needs `file` to find the binaries) man-db
#            (the installed-package check's `man -w`)
#   fuzzing: clang-14 libclang-rt-14-dev (libFuzzer and the ASan/UBSan runtimes; scripts/fuzz.sh)
WARPVOL_PACKAGES=(
  build-essential cmake pkg-config libcrypto++-dev libboost-program-options-dev catch2 libargon2-dev libxxhash-dev libssl-dev
  nlohmann-json3-dev libfuse3-dev fuse3 mtools python3-botan qt6-base-dev qt6-charts-dev
  libqt6opengl6-dev libqt6svg6 qt6-qpa-plugins xvfb xauth desktop-file-utils fio e2fsprogs dosfstools fusefat
  dbus-daemon dpkg-dev file man-db exfatprogs ntfs-3g exfat-fuse python3-venv clang-14 libclang-rt-14-dev python3
)

WARPVOL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WARPVOL_BUILD="${WARPVOL_BUILD_DIR:-$WARPVOL_ROOT/build}"

warpvol_log() { printf 'warpvol setup: %s\n' "$*" >&2; }

# Prints the packages of WARPVOL_PACKAGES that are not installed, one per line.
warpvol_missing_packages() {
  local p
  for p in "${WARPVOL_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
      printf '%s\n' "$p"
    fi
  done
}

# Installs what is missing: apt-get when root (one `apt-get update` first), otherwise prints the one apt-get
# line to run and fails.
warpvol_install_deps() {
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    warpvol_log "not a Debian/Ubuntu system (no dpkg/apt-get): install the equivalents of: ${WARPVOL_PACKAGES[*]}"
    return 0
  fi
  local missing
  mapfile -t missing < <(warpvol_missing_packages)
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  if [ "$(id -u)" -eq 0 ]; then
    warpvol_log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update </dev/null
    apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
  else
    warpvol_log "missing packages; run this once, then run me again:"
    printf 'sudo apt-get install -y %s\n' "${missing[*]}"
    return 1
  fi
}

# Configures Release into build/ (incremental: an existing configuration is reused) and builds the given targets
# (everything when none are given).
warpvol_build() {
  local jobs
  jobs="$(nproc 2>/dev/null || echo 2)"
  # No GPU here (nvidia-smi -L fails): skip the 225 fused re-encryption kernels, which cost many CPU-minutes to
  # compile and could not run anyway; re-encryption on a GPU then uses two kernels per chunk (gpu/NOTES.md).
  local fused=ON
  nvidia-smi -L >/dev/null 2>&1 || fused=OFF
  # WARPVOL_REQUIRE_ALL: every part the package list above provides must build (the GUI; the GPU engine where
  # nvcc is present); a missing one fails here instead of being skipped. Configuring again is cheap and applies
  # the option to an existing build folder too.
  local configure=(-DCMAKE_BUILD_TYPE=Release -DWARPVOL_REQUIRE_ALL=ON)
  [ -f "$WARPVOL_BUILD/CMakeCache.txt" ] || configure+=(-DWARPVOL_GPU_FUSED_REENCRYPT="$fused")
  cmake -S "$WARPVOL_ROOT" -B "$WARPVOL_BUILD" "${configure[@]}" </dev/null
  local targets=()
  local t
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$WARPVOL_BUILD" -j"$jobs" "${targets[@]}" </dev/null
}
