#!/bin/sh
# Sets osprey up on a Debian 12 machine: installs the Debian packages it needs (if missing),
# configures and builds osprey for both host MPIs (MPICH and Open MPI), then runs the demo on
# each with the host MPI's own RMA and with osprey.
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

# osprey is built once per host MPI: MPICH's flavor in build/, Open MPI's in build/openmpi/.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
cmake -S . -B build/openmpi -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSPREY_HOST_MPI=OPENMPI >/dev/null
cmake --build build/openmpi -j"$(nproc)"

# Open MPI refuses to start as root unless told twice, and more ranks than cores unless told.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

echo
echo "== demo: distributed histogram, 2 ranks, fence epochs (MPICH: its own RMA, then osprey) =="
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
"$mpiexec" -n 2 build/examples/histogram
tools/osprey-run "$mpiexec" -n 2 build/examples/histogram
echo
echo "== the same under Open MPI (its own RMA, then osprey) =="
mpirun.openmpi -n 2 build/openmpi/examples/histogram
tools/osprey-run mpirun.openmpi -n 2 build/openmpi/examples/histogram
