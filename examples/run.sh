#!/bin/sh
# Runs one example with the host MPI's own RMA, then with osprey underneath (tools/osprey-run),
# and prints both times side by side:
#   examples/run.sh <example> [-n ranks] [--am | --mixed] [--only host|osprey] [args...]
# <example> is a program built in <build>/examples (dht, linked_list, halo_pscw, work_steal,
# global_sum, histogram); args go to it. It builds nothing.
#   -n N       ranks (default 2)
#   --am       osprey: every target on the message path (OSPREY_TRANSPORT=am); the host's
#              RMA by messages too: MPIR_CVAR_NOLOCAL=1 (MPICH), osc/pt2pt (Open MPI)
#   --mixed    simulated nodes: MPICH's odd/even cliques for both runs; under Open MPI,
#              OSPREY_VIRTUAL_NODES=2 (osprey only: Open MPI has no such switch)
#   --only X   run only the host's RMA (host) or only osprey (osprey)
# Environment: OSPREY_BUILD (default: build next to this script's folder), MPIEXEC (the
# launcher; default: the one of the MPI the example is linked with), OSPREY_LIB (the library
# tools/osprey-run preloads; set it when OSPREY_BUILD is not the default build), HOST_MPI_ARGS
# (launcher arguments for the host run only; under Open MPI the default is
# "--mca osc sm,pt2pt", with --am "--mca osc pt2pt").
# Exits non-zero if a run fails or does not print its verdict line ("<example> [...]: ... ok").
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 1 ] || usage
example=$1
shift
ranks=2
setting=auto
only=
while [ $# -gt 0 ]; do
  case $1 in
  -n) [ $# -ge 2 ] || usage; ranks=$2; shift 2 ;;
  --am) setting=am; shift ;;
  --mixed) setting=mixed; shift ;;
  --only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
  -h | --help) usage ;;
  *) break ;;
  esac
done
case $only in "" | host | osprey) ;; *) usage ;; esac

build=$(cd "${OSPREY_BUILD:-$here/../build}" 2>/dev/null && pwd) || {
  echo "run.sh: build folder ${OSPREY_BUILD:-$here/../build} not found" >&2
  exit 2
}
program=$build/examples/$example
if [ ! -x "$program" ]; then
  echo "run.sh: $program not found (build first: cmake --build build)" >&2
  exit 2
fi
if [ -n "${MPIEXEC:-}" ]; then
  launcher=$MPIEXEC
elif ldd "$program" 2>/dev/null | grep -q libmpich; then
  launcher=$(command -v mpiexec.mpich || command -v mpiexec)
else
  launcher=$(command -v mpiexec.openmpi || command -v mpiexec)
fi
if "$launcher" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then flavor=openmpi; else flavor=mpich; fi

# Environment of each run, by setting. Open MPI 4.1's default one-sided components
# (osc/rdma, osc/ucx) can crash in MPI_Compare_and_swap on one node: its host runs use osc/sm
# (MPI_Win_allocate windows) and osc/pt2pt (every other kind), or only osc/pt2pt, which works
# with messages, when osprey is on its message path.
host_env=
osprey_env=
host_args=
[ $flavor = openmpi ] && host_args="--mca osc sm,pt2pt"
case $setting in
am)
  osprey_env="OSPREY_TRANSPORT=am"
  if [ $flavor = mpich ]; then host_env="MPIR_CVAR_NOLOCAL=1"; else host_args="--mca osc pt2pt"; fi
  ;;
mixed)
  if [ $flavor = mpich ]; then
    host_env="MPIR_CVAR_ODD_EVEN_CLIQUES=1 MPIR_CVAR_NUM_CLIQUES=2"
    osprey_env=$host_env
  else
    osprey_env="OSPREY_VIRTUAL_NODES=2"
  fi
  ;;
esac
host_args=${HOST_MPI_ARGS-$host_args}

out=$(mktemp "${TMPDIR:-/tmp}/osprey-example.XXXXXX")
trap 'rm -f "$out"' EXIT
status=0

# run <label> <shown command> <command...>: runs it, shows its output, sets `seconds` from the
# verdict line.
run() {
  label=$1
  echo "== $label: $2"
  shift 2
  "$@" >"$out" 2>&1
  rc=$?
  cat "$out"
  seconds=
  verdict=$(grep -E "^$example \[.*\]: .* ok$" "$out" | head -n 1)
  if [ "$rc" -ne 0 ] || [ -z "$verdict" ]; then
    echo "run.sh: $label run FAILED (status $rc$([ -z "$verdict" ] && echo ', no verdict line'))"
    status=1
    return
  fi
  seconds=$(echo "$verdict" | grep -oE '[0-9]+\.[0-9]+ s' | head -n 1 | cut -d' ' -f1)
}

host_seconds=
osprey_seconds=
if [ "$only" != osprey ]; then
  # shellcheck disable=SC2086 # the variables hold several words on purpose
  run "host MPI's RMA" "${host_env:+$host_env }$launcher ${host_args:+$host_args }-n $ranks $program${*:+ $*}" \
    env $host_env "$launcher" $host_args -n "$ranks" "$program" "$@"
  host_seconds=$seconds
fi
if [ "$only" != host ]; then
  # shellcheck disable=SC2086
  run osprey "${osprey_env:+$osprey_env }tools/osprey-run -n $ranks $program${*:+ $*}" \
    env $osprey_env MPIEXEC="$launcher" "$here/../tools/osprey-run" -n "$ranks" "$program" "$@"
  osprey_seconds=$seconds
fi

if [ -n "$host_seconds" ] && [ -n "$osprey_seconds" ]; then
  awk -v e="$example" -v n="$ranks" -v s="$setting" -v h="$host_seconds" -v o="$osprey_seconds" \
    'BEGIN {
       line = sprintf("%s, %d ranks, %s: host MPI %.4f s, osprey %.4f s", e, n, s, h, o)
       if (o > 0 && h > 0) line = line sprintf(h / o < 1 ? " (host/osprey %.2f)" : " (host/osprey %.1f)", h / o)
       print line
     }'
fi
exit $status
