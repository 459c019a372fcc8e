#!/bin/sh
# Runs the whole osprey test suite: unit and MPI tests in a normal build, again under
# AddressSanitizer + UndefinedBehaviorSanitizer, the threaded tests under ThreadSanitizer, and
# the whole suite once more with Open MPI as the host, built Release (-O3, where g++ 12 warns of
# things it does not at -O2). Each MPI test runs under a timeout. Checks the formatting first,
# and that MPICH's flavor of the library builds Release too. Exits non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh --deps
jobs=$(nproc)

# MPI tests start up to 4 ranks: under MPICH, two jobs at once on 2 cores ran the suite 15 %
# slower than one at a time (each job's ranks busy-poll in the host while the other's hold the
# CPUs); Open MPI's launcher idles at start-up, and there two at a time are 1.6x faster.
mpich_jobs=$((jobs / 2 > 1 ? jobs / 2 : 1))

run_suite() {  # <build dir> <cmake args> <parallel tests> <ctest args>
  dir=$1
  cmake -S . -B "$dir" $2 >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  (cd "$dir" && ctest -j"$3" --output-on-failure --timeout 300 $4)
}

# The threaded tests only: the library and their programs (the target threaded_tests).
run_threaded() {  # <build dir> <cmake args> <parallel tests>
  cmake -S . -B "$1" $2 >/dev/null
  cmake --build "$1" -j"$jobs" --target threaded_tests >/dev/null
  (cd "$1" && ctest -j"$3" --output-on-failure --timeout 300 -L threaded)
}

echo "== format (clang-format, .clang-format) =="
find src tests bench examples include tools \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print |
  xargs clang-format --dry-run -Werror
# The code only MPICH's flavor compiles, at -O3 (the Open MPI suite below covers the rest).
echo "== Release build of the library (MPICH, compiled only) =="
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$jobs" --target osprey >/dev/null
echo "== normal build =="
run_suite build "-DCMAKE_BUILD_TYPE=RelWithDebInfo" "$mpich_jobs" ""
# The sanitizer builds live two levels down, so that nothing in the build may assume its
# folder sits directly under the source.
echo "== AddressSanitizer + UndefinedBehaviorSanitizer =="
run_suite build/asan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=address,undefined" "$mpich_jobs" ""
echo "== ThreadSanitizer (threaded tests) =="
run_threaded build/tsan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=thread" "$jobs"
# Open MPI refuses to start as root unless told twice (CI containers run as root).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "== Open MPI as the host, Release (the whole suite again, under mpirun) =="
run_suite build/openmpi-release "-DCMAKE_BUILD_TYPE=Release -DOSPREY_HOST_MPI=OPENMPI" "$jobs" ""
echo "test: all suites passed"
