#!/bin/sh
# Fails if the host MPI library exports an RMA entry point (MPI_ or PMPI_, including the MPI-4
# large-count _c forms) that osprey does not define: such a call would silently reach the host
# and act on the anchor window instead of osprey's.
#   tools/check-symbols.sh <host libmpi.so> <libosprey-mpich.so or libosprey-openmpi.so>
set -eu
host=$1
lib=$2
re='^P?MPI_(Win_[A-Za-z_]+|Put|Get|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap|Alloc_mem|Free_mem)(_c)?$'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$host" | awk '{print $3}' | grep -E "$re" | sort -u >"$tmp/host"
nm -D --defined-only "$lib" | awk '{print $3}' | sort -u >"$tmp/ours"
n=$(wc -l <"$tmp/host")
if [ "$n" -lt 60 ]; then
  echo "check-symbols: only $n RMA symbols found in $host: wrong library?" >&2
  exit 1
fi
missing=$(comm -23 "$tmp/host" "$tmp/ours")
if [ -n "$missing" ]; then
  echo "check-symbols: $host exports RMA symbols that osprey does not define:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "check-symbols: all $n RMA symbols of $(basename "$host") are defined by osprey"
