// Turns a derived datatype into the exact list of byte blocks one element covers, in type map
// order, and finds the single basic type it is made of (if any).
#pragma once

#include "datatype/type_info.h"
#include "util/small_vec.h"

namespace osprey::dt {

// Argument lists live in place up to these lengths (see small_vec.h): a typical constructor
// (an indexed type of up to 19 blocks, a struct of up to 4 members) never touches the heap.
using Ints = SmallVec<int64_t, 40>;
using Aints = SmallVec<MPI_Aint, 24>;
using Types = SmallVec<MPI_Datatype, 4>;

// A derived type's constructor as the host reports it, its arguments in the layout of the
// MPI-3 (int) constructors with 64-bit integers. Derived types among `types` are new handles
// that whoever decodes them frees (flatten does).
struct Contents {
  int comb = MPI_COMBINER_NAMED;
  bool large = false;  // built by an MPI-4 large-count (_c) constructor
  Ints ints;
  Aints aints;
  Types types;
};
Contents read_contents(MPI_Datatype t);

// Fills blocks, cat, repr and elem_size of `out` for derived datatype t (or the constructor
// read from it), checking that the blocks add up to out.size.
Status flatten(MPI_Datatype t, TypeInfo& out);
Status flatten(Contents& c, TypeInfo& out);

}  // namespace osprey::dt
