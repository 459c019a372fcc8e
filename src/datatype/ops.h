// The predefined operations accumulate calls take, and which element kinds each applies to
// (MPI-3.1 5.9.2 and 11.3.4).
#pragma once

#include <mpi.h>

#include "datatype/type_info.h"

namespace osprey::dt {

enum class Op : uint8_t {
  kSum, kProd, kMax, kMin, kLand, kLor, kLxor, kBand, kBor, kBxor, kMaxloc, kMinloc,
  kReplace, kNoOp, kInvalid,
};

Op to_op(MPI_Op op);

// MPI_ERR_OP if op is not predefined or does not apply to t's basic type; MPI_ERR_TYPE if t
// is not made of one basic type.
Status check_op(Op op, const TypeInfo& t);

}  // namespace osprey::dt
