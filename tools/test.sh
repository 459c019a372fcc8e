#!/bin/sh
# Runs the whole osprey test suite: unit and MPI tests in a normal build, again under
# AddressSanitizer + UndefinedBehaviorSanitizer, the threaded tests under ThreadSanitizer, and
# the whole suite once more with Open MPI as the host. Each MPI test runs under a timeout.
# Checks the formatting first. Exits non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh --deps
jobs=$(nproc)

run_suite() {  # <build dir> <cmake args> <ctest args>
  dir=$1
  cmake -S . -B "$dir" $2 >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  (cd "$dir" && ctest -j"$jobs" --output-on-failure --timeout 300 $3)
}

echo "== format (clang-format, .clang-format) =="
find src tests bench examples include tools \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print |
  xargs clang-format --dry-run -Werror
echo "== normal build =="
run_suite build "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ""
# The sanitizer builds live two levels down, so that nothing in the build may assume its
# folder sits directly under the source.
echo "== AddressSanitizer + UndefinedBehaviorSanitizer =="
run_suite build/asan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=address,undefined" ""
echo "== ThreadSanitizer (threaded tests) =="
run_suite build/tsan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=thread" "-L threaded"
# Open MPI refuses to start as root unless told twice (CI containers run as root).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "== Open MPI as the host (the whole suite again, under mpirun) =="
run_suite build/openmpi "-DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSPREY_HOST_MPI=OPENMPI" ""
echo "test: all suites passed"
