#!/bin/sh
# Fails if the library's reduction loops (plain_array, src/datatype/apply.cc) were built without
# vector instructions in their AVX2 and AVX-512 clones. The per-file option that vectorized them
# once stopped reaching the linked code (a precompiled header's options won at link time),
# silently: every bulk accumulate ran 2-2.6x slower.
#   tools/check-vectorized.sh <libosprey-mpich.so or libosprey-openmpi.so>
set -eu
lib=$1
objdump -d -C --no-show-raw-insn "$lib" | awk '
  /plain_array<(long double|__float128)>.*>:$/ { name = ""; next }  # x87, soft floats: scalar
  /plain_array<.*\.cold\]?>:$/ { name = ""; next }
  /plain_array<.*\[clone \.(avx2|arch_x86_64_v4)[].]/ && />:$/ { name = $0; seen[name] = 0; next }
  /^$/ { name = "" }
  name != "" && /%[yz]mm/ { seen[name]++ }
  END {
    n = 0; bad = 0
    for (f in seen) { n++; if (seen[f] == 0) { bad++; print "scalar: " f } }
    if (n < 10) { print "check-vectorized: only " n " reduction clones found"; exit 1 }
    if (bad) { print "check-vectorized: " bad " of " n " reduction clones are not vectorized"; exit 1 }
    print "check-vectorized: all " n " reduction clones use vector registers"
  }'
