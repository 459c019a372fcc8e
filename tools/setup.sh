#!/bin/sh
# Sets osprey up on a Debian 12 machine: installs the Debian packages it needs (if missing),
# configures and builds, then runs the demo with the host MPI's RMA and with osprey.
#   tools/setup.sh            everything
#   tools/setup.sh --deps     only the packages
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential cmake pkg-config mpich libmpich-dev openmpi-bin libopenmpi-dev
  googletest libgtest-dev libgmock-dev clang-format python3 python3-matplotlib binutils"

install_deps() {
  missing=""
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "setup: installing$missing"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

install_deps
[ "${1:-}" = "--deps" ] && exit 0

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

echo
echo "== demo: distributed histogram, 2 ranks, fence epochs =="
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
"$mpiexec" -n 2 build/examples/histogram
MPIEXEC="$mpiexec" tools/osprey-run -n 2 build/examples/histogram
