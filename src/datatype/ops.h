// The predefined operations accumulate calls take, and which element kinds each applies to
// (MPI-3.1 5.9.2 and 11.3.4).
#pragma once

#include <mpi.h>

#include "datatype/type_info.h"

namespace osprey::dt {

enum class Op : uint8_t {
  kSum,
  kProd,
  kMax,
  kMin,
  kLand,
  kLor,
  kLxor,
  kBand,
  kBor,
  kBxor,
  kMaxloc,
  kMinloc,
  kReplace,
  kNoOp,
  kInvalid,
};

inline Op to_op(MPI_Op op) {
  if (op == MPI_SUM) return Op::kSum;
  if (op == MPI_REPLACE) return Op::kReplace;
  if (op == MPI_NO_OP) return Op::kNoOp;
  if (op == MPI_MAX) return Op::kMax;
  if (op == MPI_MIN) return Op::kMin;
  if (op == MPI_BOR) return Op::kBor;
  if (op == MPI_BAND) return Op::kBand;
  if (op == MPI_BXOR) return Op::kBxor;
  if (op == MPI_PROD) return Op::kProd;
  if (op == MPI_LAND) return Op::kLand;
  if (op == MPI_LOR) return Op::kLor;
  if (op == MPI_LXOR) return Op::kLxor;
  if (op == MPI_MAXLOC) return Op::kMaxloc;
  if (op == MPI_MINLOC) return Op::kMinloc;
  return Op::kInvalid;
}

// Whether op applies to elements of category c: MPI-3.1 5.9.2 (REPLACE and NO_OP to all), plus
// what the host MPI's own reductions apply beyond it, so that programs written against the host
// run unchanged. Both: MPI_CHAR and MPI_CHARACTER count as integers (see predefined.cc). MPICH:
// logical operations apply to floating types. Open MPI: MPI_BYTE takes the arithmetic and
// logical operations as an unsigned char (and some Fortran integers refuse logical ones: see
// host_refused_ops in predefined.cc).
constexpr bool op_applies(Op op, Category c) {
#ifdef OSPREY_HOST_OPENMPI
  constexpr bool kByteArithmetic = true, kFloatLogical = false;
#else
  constexpr bool kByteArithmetic = false, kFloatLogical = true;
#endif
  const bool byte_arith = kByteArithmetic && c == Category::kByte;
  switch (op) {
    case Op::kReplace:
    case Op::kNoOp:
      return true;
    case Op::kSum:
    case Op::kProd:
      return c == Category::kInteger || c == Category::kFloating || c == Category::kComplex ||
             byte_arith;
    case Op::kMax:
    case Op::kMin:
      return c == Category::kInteger || c == Category::kFloating || byte_arith;
    case Op::kLand:
    case Op::kLor:
    case Op::kLxor:
      return c == Category::kInteger || c == Category::kLogical ||
             (kFloatLogical && c == Category::kFloating) || byte_arith;
    case Op::kBand:
    case Op::kBor:
    case Op::kBxor:
      return c == Category::kInteger || c == Category::kByte;
    case Op::kMaxloc:
    case Op::kMinloc:
      return c == Category::kPair;
    case Op::kInvalid:
      return false;
  }
  return false;
}

// The operations that apply to category c, one bit per Op (see TypeInfo::ops).
constexpr uint16_t op_mask(Category c) {
  uint16_t m = 0;
  for (int o = 0; o < static_cast<int>(Op::kInvalid); ++o)
    if (op_applies(static_cast<Op>(o), c)) m = static_cast<uint16_t>(m | 1u << o);
  return m;
}

// Whether accumulates may apply op to elements of t (decided once, when t was decoded).
inline bool takes(const TypeInfo& t, Op op) {
  return (t.ops >> static_cast<unsigned>(op)) & 1u;
}

// MPI_ERR_OP if op is not predefined or does not apply to t's basic type; MPI_ERR_TYPE if t
// is not made of one basic type.
Status check_op(Op op, const TypeInfo& t);

}  // namespace osprey::dt
