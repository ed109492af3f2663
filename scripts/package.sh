#!/usr/bin/env bash
# scripts/package.sh: install missing packages, build Release into build/, and make the Debian package
# build/warpvol_VERSION_ARCH.deb (CPack; Depends from dpkg-shlibdeps). Prints the package's path.
set -euo pipefail
# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

warpvol_install_deps
warpvol_build
cd "$WARPVOL_BUILD"
rm -f warpvol_*.deb
cpack -G DEB </dev/null >&2
ls "$WARPVOL_BUILD"/warpvol_*.deb
