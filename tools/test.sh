#!/bin/sh
# Runs the whole osprey test suite: unit and MPI tests in a normal build, again under
# AddressSanitizer + UndefinedBehaviorSanitizer, and the threaded tests under
# ThreadSanitizer. Each MPI test runs under a timeout. Checks the formatting first. Exits
# non-zero on any failure.
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
find src tests bench examples include \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print |
  xargs clang-format --dry-run -Werror
echo "== normal build =="
run_suite build "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ""
# The sanitizer builds live two levels down, so that nothing in the build may assume its
# folder sits directly under the source.
echo "== AddressSanitizer + UndefinedBehaviorSanitizer =="
run_suite build/asan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=address,undefined" ""
echo "== ThreadSanitizer (threaded tests) =="
run_suite build/tsan "-DCMAKE_BUILD_TYPE=Debug -DOSPREY_SANITIZE=thread" "-L threaded"
echo "test: all suites passed"
