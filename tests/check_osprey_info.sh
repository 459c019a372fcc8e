#!/bin/sh
# Checks what osprey-info prints and how it judges the self-test:
#   check_osprey_info.sh <osprey-info> report          host MPI, machine and configuration lines
#   check_osprey_info.sh <osprey-info> check           --check passes and names every flavor's path
#   check_osprey_info.sh <osprey-info> missing-library --check fails when the library is missing
#   check_osprey_info.sh <osprey-info> host-rma <lib>  --check fails when <lib> (the host MPI)
#                                                      is preloaded instead: host RMA serves
set -u
info=$1
mode=$2
out=$(mktemp "${TMPDIR:-/tmp}/osprey-info.XXXXXX")
trap 'rm -f "$out"' EXIT

fail() {
  echo "check_osprey_info: FAIL: $*"
  exit 1
}
# expect <extended regex>: some line of the output matches.
expect() {
  grep -Eq -- "$1" "$out" || fail "no line matches /$1/"
}
# section <title>: the lines of one setting of --check.
section() {
  awk -v t="$1" 'index($0, t) == 1 { on = 1; next } /^[^ ]/ { on = 0 } on' "$out"
}
flavors="MPI_Win_allocate
MPI_Win_allocate_shared
MPI_Win_create (malloc memory)
MPI_Win_create (MPI_Alloc_mem memory)
MPI_Win_create_dynamic"

case $mode in
  report)
    "$info" >"$out" 2>&1 || { cat "$out"; fail "osprey-info exited with status $?"; }
    cat "$out"
    expect '^osprey [0-9]+\.[0-9]+\.[0-9]+$'
    expect '^host MPI: +(MPICH|Open MPI), built against its mpi.h [0-9]'
    expect '^host library: +[^ ]'
    expect '^launcher: +/'
    expect '^osprey library: +/'
    expect '^  cross-memory attach +(allowed|not allowed): '
    expect '^  /dev/shm +([0-9.]+ GiB free of [0-9.]+ GiB|not available)'
    expect '^  CPUs +[0-9]+ in this process.s affinity mask, [0-9]+ online$'
    expect '^  oversubscribed +'
    expect '^  CPU time +shared out per (session|process)'
    expect '^  OSPREY_TRANSPORT +default auto +current '
    ;;
  check)
    "$info" --check >"$out" 2>&1
    rc=$?
    cat "$out"
    [ "$rc" -eq 0 ] || fail "osprey-info --check exited with status $rc"
    expect '^osprey-info --check: OK'
    for setting in "one node" "message path (OSPREY_TRANSPORT=am)"; do
      while IFS= read -r f; do
        line=$(section "$setting" | grep -F "  $f  ")
        [ -n "$line" ] || fail "$setting: no line for $f"
        echo "$line" | grep -Eq " path [a-z+]+ +data ok$" ||
          fail "$setting: $f has no path or its data is wrong"
      done <<END
$flavors
END
    done
    # One node: window memory the node shares is reached by loads and stores.
    section "one node" | grep -Eq '^  MPI_Win_allocate +path shm +data ok$' ||
      fail "one node: MPI_Win_allocate is not on the shared-memory path"
    # OSPREY_TRANSPORT=am: every target on the message path.
    [ "$(section "message path" | grep -Ec ' path am +data ok$')" -eq 5 ] ||
      fail "message path: not every flavor is on path am"
    ;;
  missing-library)
    OSPREY_LIB=/nonexistent "$info" --check >"$out" 2>&1
    rc=$?
    cat "$out"
    [ "$rc" -ne 0 ] || fail "--check exited 0 without a library"
    expect 'FAILED: the osprey library /nonexistent is not there'
    ;;
  host-rma)
    OSPREY_LIB=$3 "$info" --check >"$out" 2>&1
    rc=$?
    cat "$out"
    [ "$rc" -ne 0 ] || fail "--check exited 0 with the host MPI's RMA serving the windows"
    expect "^  MPI_Win_allocate +host RMA"
    expect "every window served by the host MPI's RMA, not osprey"
    expect '^osprey-info --check: FAILED'
    ;;
  *)
    fail "unknown mode $mode"
    ;;
esac
echo "check_osprey_info $mode: OK"
