#include "datatype/ops.h"

namespace osprey::dt {

Status check_op(Op op, const TypeInfo& t) {
  if (op == Op::kInvalid)
    return Err(MPI_ERR_OP, "osprey: RMA accumulates take only predefined operations");
  if (t.cat == Category::kMixed)
    return Err(MPI_ERR_TYPE,
               "osprey: accumulate datatypes must be built from one predefined datatype");
  if (t.cat == Category::kNone) return kOk;  // no data: any op is a no-op
  if (!takes(t, op)) return Err(MPI_ERR_OP, "osprey: operation does not apply to this datatype");
  return kOk;
}

}  // namespace osprey::dt
