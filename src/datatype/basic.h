// The basic (predefined) element kinds that RMA data is made of, as reductions see them.
#pragma once

#include <cstdint>

namespace osprey::dt {

// Which reduction operations apply (MPI-3.1 5.9.2 groups, plus pairs for MAXLOC/MINLOC).
enum class Category : uint8_t {
  kNone,      // no data (size 0), or not yet known
  kInteger,   // C and Fortran integers, MPI_AINT/OFFSET/COUNT
  kFloating,  // float, double, long double, Fortran reals
  kComplex,
  kLogical,  // C bool, C++ bool, Fortran LOGICAL
  kByte,     // MPI_BYTE
  kOpaque,   // characters, MPI_PACKED and extensions: only REPLACE and NO_OP
  kPair,     // value-index pairs
  kMixed,    // more than one basic type: no accumulate at all
};

// How one basic element is laid out in memory.
enum class Repr : uint8_t {
  kNone,
  kI8,
  kU8,
  kI16,
  kU16,
  kI32,
  kU32,
  kI64,
  kU64,
  kF32,
  kF64,
  kF80,
  kF128,
  kC32,
  kC64,
  kC80,
  kC128,
  kBool8,     // C _Bool / C++ bool
  kLogical4,  // Fortran LOGICAL
  kPairF32I32,
  kPairF64I32,
  kPairI64I32,
  kPairI16I32,
  kPairI32I32,
  kPairF80I32,
  kPairF32F32,
  kPairF64F64,
  kBytes,  // opaque bytes of the type's size
};

// C layouts of the predefined pair types.
struct FloatInt {
  float v;
  int i;
};
struct DoubleInt {
  double v;
  int i;
};
struct LongInt {
  long v;
  int i;
};
struct ShortInt {
  short v;
  int i;
};
struct IntInt {
  int v;
  int i;
};
struct LongDoubleInt {
  long double v;
  int i;
};
struct FloatFloat {
  float v;
  float i;
};
struct DoubleDouble {
  double v;
  double i;
};

// Bytes of one element in memory (the C sizeof; pairs include padding), 0 for kBytes/kNone.
constexpr uint32_t repr_size(Repr r) {
  switch (r) {
    case Repr::kI8:
    case Repr::kU8:
    case Repr::kBool8:
      return 1;
    case Repr::kI16:
    case Repr::kU16:
      return 2;
    case Repr::kI32:
    case Repr::kU32:
    case Repr::kF32:
    case Repr::kLogical4:
      return 4;
    case Repr::kI64:
    case Repr::kU64:
    case Repr::kF64:
    case Repr::kC32:
      return 8;
    case Repr::kF80:
      return sizeof(long double);
    case Repr::kF128:
      return 16;
    case Repr::kC64:
      return 16;
    case Repr::kC80:
      return 2 * sizeof(long double);
    case Repr::kC128:
      return 32;
    case Repr::kPairF32I32:
      return sizeof(FloatInt);
    case Repr::kPairF64I32:
      return sizeof(DoubleInt);
    case Repr::kPairI64I32:
      return sizeof(LongInt);
    case Repr::kPairI16I32:
      return sizeof(ShortInt);
    case Repr::kPairI32I32:
      return sizeof(IntInt);
    case Repr::kPairF80I32:
      return sizeof(LongDoubleInt);
    case Repr::kPairF32F32:
      return sizeof(FloatFloat);
    case Repr::kPairF64F64:
      return sizeof(DoubleDouble);
    case Repr::kNone:
    case Repr::kBytes:
      return 0;
  }
  return 0;
}

}  // namespace osprey::dt
