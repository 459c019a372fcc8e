#include "datatype/ops.h"

namespace osprey::dt {

Op to_op(MPI_Op op) {
  if (op == MPI_SUM) return Op::kSum;
  if (op == MPI_PROD) return Op::kProd;
  if (op == MPI_MAX) return Op::kMax;
  if (op == MPI_MIN) return Op::kMin;
  if (op == MPI_LAND) return Op::kLand;
  if (op == MPI_LOR) return Op::kLor;
  if (op == MPI_LXOR) return Op::kLxor;
  if (op == MPI_BAND) return Op::kBand;
  if (op == MPI_BOR) return Op::kBor;
  if (op == MPI_BXOR) return Op::kBxor;
  if (op == MPI_MAXLOC) return Op::kMaxloc;
  if (op == MPI_MINLOC) return Op::kMinloc;
  if (op == MPI_REPLACE) return Op::kReplace;
  if (op == MPI_NO_OP) return Op::kNoOp;
  return Op::kInvalid;
}

Status check_op(Op op, const TypeInfo& t) {
  if (op == Op::kInvalid)
    return Err(MPI_ERR_OP, "osprey: RMA accumulates take only predefined operations");
  if (t.cat == Category::kMixed)
    return Err(MPI_ERR_TYPE,
               "osprey: accumulate datatypes must be built from one predefined datatype");
  if (t.cat == Category::kNone) return kOk;  // no data: any op is a no-op
  bool ok = false;
  switch (op) {
    case Op::kReplace:
    case Op::kNoOp: ok = true; break;
    case Op::kSum:
    case Op::kProd:
      ok = t.cat == Category::kInteger || t.cat == Category::kFloating ||
           t.cat == Category::kComplex;
      break;
    case Op::kMax:
    case Op::kMin: ok = t.cat == Category::kInteger || t.cat == Category::kFloating; break;
    case Op::kLand:
    case Op::kLor:
    case Op::kLxor: ok = t.cat == Category::kInteger || t.cat == Category::kLogical; break;
    case Op::kBand:
    case Op::kBor:
    case Op::kBxor: ok = t.cat == Category::kInteger || t.cat == Category::kByte; break;
    case Op::kMaxloc:
    case Op::kMinloc: ok = t.cat == Category::kPair; break;
    case Op::kInvalid: break;
  }
  if (!ok) return Err(MPI_ERR_OP, "osprey: operation does not apply to this datatype");
  return kOk;
}

}  // namespace osprey::dt
