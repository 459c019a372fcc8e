// Turns a derived datatype into the exact list of byte blocks one element covers, in type map
// order, and finds the single basic type it is made of (if any).
#pragma once

#include "datatype/type_info.h"

namespace osprey::dt {

// Fills blocks, cat, repr and elem_size of `out` for datatype t (named or derived).
Status flatten(MPI_Datatype t, TypeInfo& out);

}  // namespace osprey::dt
