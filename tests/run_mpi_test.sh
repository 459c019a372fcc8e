#!/bin/sh
# Runs one MPI test program under osprey and judges it:
#   run_mpi_test.sh <verdict regex> <ranks> <program> [args...]
# It passes only if the launcher reports that every rank exited 0 AND the output holds a line
# matching the verdict (a program that aborted after printing something never passes, and one
# that exits 0 without its verdict does not either). With EXPECT_ABORT=<regex>[&&<regex>...]
# set, the test instead passes only if the job ended with a non-zero status, its output matches
# every regex (the error the program must die of) and it never printed "still running"; with
# EXPECT_WITHIN=<seconds> also set, the job must have ended within that time.
set -u
verdict=$1
np=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp "${TMPDIR:-/tmp}/osprey-test.XXXXXX")
trap 'rm -f "$out"' EXIT

start=$(date +%s)
"$here/../tools/osprey-run" -n "$np" "$@" >"$out" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
cat "$out"

fail() {
  echo "run_mpi_test: FAIL: $*"
  exit 1
}

if [ -n "${EXPECT_ABORT:-}" ]; then
  [ "$rc" -ne 0 ] || fail "the job exited 0, but it must abort with /$EXPECT_ABORT/"
  rest=$EXPECT_ABORT
  while [ -n "$rest" ]; do
    pat=${rest%%&&*}
    case $rest in *"&&"*) rest=${rest#*&&} ;; *) rest= ;; esac
    grep -Eq -- "$pat" "$out" || fail "the job aborted (status $rc) without /$pat/"
  done
  if grep -q "still running" "$out"; then fail "the program went on after the error"; fi
  # A program that printed "pids: <pid>..." must have left no segment of those processes.
  for pid in $(sed -n 's/^pids://p' "$out"); do
    if ls /dev/shm/osprey-"$pid"-* >/dev/null 2>&1; then fail "process $pid left files in /dev/shm"; fi
  done
  if [ -n "${EXPECT_WITHIN:-}" ] && [ "$elapsed" -gt "$EXPECT_WITHIN" ]; then
    fail "the job took $elapsed s to end, more than $EXPECT_WITHIN s"
  fi
  echo "run_mpi_test: aborted as expected (status $rc, after $elapsed s)"
  exit 0
fi
[ "$rc" -eq 0 ] || fail "the job exited with status $rc"
grep -Eq -- "$verdict" "$out" || fail "every rank exited 0 but the verdict /$verdict/ is missing"
exit 0
