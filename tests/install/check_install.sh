#!/bin/sh
# Installs a build into a fresh prefix and uses it as a user would:
#   check_install.sh <cmake> <build dir> <host mpicc> <host mpiexec> <flavor> <libdir>
# (flavor: mpich or openmpi; libdir: CMAKE_INSTALL_LIBDIR). It builds install_rma.c three ways
# (find_package(osprey) with tests/install/CMakeLists.txt; mpicc with pkg-config's osprey; plain
# MPI), runs the linked ones with 2 ranks and the plain one under the installed osprey-run, and
# passes only if each exits 0 with its verdict, which install_rma prints only when osprey served
# its window. The plain one without osprey must fail that check. OSPREY_PRELOAD_FIRST (a
# sanitizer runtime an instrumented osprey needs loaded first) is preloaded into every run.
set -u
cmake=$1
build=$2
mpicc=$3
mpiexec=$4
flavor=$5
libdir=$6
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/osprey-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
first=${OSPREY_PRELOAD_FIRST:-}
unset OSPREY_LIB MPIEXEC OSPREY_HOST_MPI
if [ "$flavor" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
fi

fail() {
  echo "check_install: FAIL: $*"
  exit 1
}
# quiet <log name> <command...>: runs the command, shows its output only if it fails.
quiet() {
  log=$tmp/$1.log
  shift
  "$@" >"$log" 2>&1 || {
    cat "$log"
    fail "$*"
  }
}

echo "== cmake --install $build --prefix <tmp>"
quiet install "$cmake" --install "$build" --prefix "$prefix"
for f in bin/osprey-run bin/osprey-info bin/osprey-info-$flavor include/osprey/version.h \
  "$libdir/libosprey-$flavor.so" "$libdir/cmake/osprey/osprey-config.cmake" \
  "$libdir/pkgconfig/osprey-$flavor.pc" "$libdir/pkgconfig/osprey.pc"; do
  [ -e "$prefix/$f" ] || fail "the installation has no $f"
done
"$prefix/bin/osprey-info" --mpi="$flavor" >"$tmp/info.txt" 2>&1 || fail "osprey-info failed"
grep -q "^osprey [0-9]" "$tmp/info.txt" || fail "osprey-info printed no version"

echo "== find_package(osprey)"
quiet configure "$cmake" -S "$here" -B "$tmp/cmake" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" -DOSPREY_EXPECT_HOST_MPI="$flavor"
quiet build "$cmake" --build "$tmp/cmake"

echo "== mpicc \$(pkg-config --libs osprey)"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --variable=host_mpi osprey)" = "$flavor" ] || fail "pkg-config's osprey is not $flavor"
# shellcheck disable=SC2046 # pkg-config's flags are separate words
quiet pkgconfig "$mpicc" -o "$tmp/linked" "$here/install_rma.c" $(pkg-config --cflags --libs osprey)
# shellcheck disable=SC2046
quiet plain "$mpicc" -o "$tmp/plain" "$here/install_rma.c" $(pkg-config --cflags osprey)

# launch <program> [NAME=value...]: the program on 2 ranks with those variables set.
launch() {
  prog=$1
  shift
  n=$#
  for kv in "$@"; do
    if [ "$flavor" = openmpi ]; then
      set -- "$@" -x "$kv"
    else
      set -- "$@" -genv "${kv%%=*}" "${kv#*=}"
    fi
  done
  shift "$n"
  "$mpiexec" -n 2 "$@" "$prog"
}
# expect_ok <what> <command...>: exit 0 and the verdict.
expect_ok() {
  what=$1
  shift
  echo "-- $what"
  "$@" >"$tmp/out" 2>&1
  rc=$?
  cat "$tmp/out"
  [ "$rc" -eq 0 ] || fail "$what: exited with status $rc"
  grep -q "^install_rma: OK" "$tmp/out" || fail "$what: no verdict"
}

echo "== run"
expect_ok "linked with find_package" launch "$tmp/cmake/install_rma" ${first:+LD_PRELOAD="$first"}
expect_ok "linked with pkg-config" launch "$tmp/linked" LD_LIBRARY_PATH="$prefix/$libdir" \
  ${first:+LD_PRELOAD="$first"}
expect_ok "plain, under the installed osprey-run" "$prefix/bin/osprey-run" "$mpiexec" -n 2 "$tmp/plain"
if launch "$tmp/plain" >"$tmp/out" 2>&1 || ! grep -q "window is not osprey's" "$tmp/out"; then
  cat "$tmp/out"
  fail "the plain program without osprey did not notice that osprey was missing"
fi
echo "check_install: OK"
