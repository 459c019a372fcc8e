// The table of predefined datatypes: category, representation and exact layout of each.
#include <cstddef>
#include <memory>

#include "datatype/apply.h"
#include "datatype/ops.h"
#include "datatype/type_info.h"
#include "util/log.h"

namespace osprey::dt {
namespace {

struct Entry {
  MPI_Datatype type;
  Category cat;
  Repr repr;
};

using C = Category;
using R = Repr;

// Pair types store the index after padding: these are their two data blocks.
template <class P>
std::vector<Block> pair_blocks() {
  const MPI_Aint v = sizeof(P::v), i_off = offsetof(P, i), i_len = sizeof(P::i);
  if (v == i_off) return {{0, v + i_len}};
  return {{0, v}, {i_off, i_len}};
}

// Operations the host's own reductions refuse on a type although its category takes them.
// Open MPI 4.1 gives MPI_INTEGER and MPI_INTEGER4 no logical operations (but INTEGER1, 2, 8).
uint16_t host_refused_ops([[maybe_unused]] MPI_Datatype t) {
#ifdef OSPREY_HOST_OPENMPI
  if (t == MPI_INTEGER || t == MPI_INTEGER4)
    return 1u << static_cast<unsigned>(Op::kLand) | 1u << static_cast<unsigned>(Op::kLor) |
           1u << static_cast<unsigned>(Op::kLxor);
#endif
  return 0;
}

void add(const Entry& e) {
  if (e.type == MPI_DATATYPE_NULL || predefined(e.type)) return;
  auto info = std::make_unique<TypeInfo>();
  info->handle = e.type;
  info->id = next_type_id();
  info->predefined = true;
  info->cat = e.cat;
  info->repr = e.repr;
  PMPI_Type_size_x(e.type, &info->size);
  PMPI_Type_get_extent(e.type, &info->lb, &info->extent);
  PMPI_Type_get_true_extent(e.type, &info->true_lb, &info->true_extent);
  switch (e.repr) {
    case R::kPairF32I32:
      info->blocks = pair_blocks<FloatInt>();
      break;
    case R::kPairF64I32:
      info->blocks = pair_blocks<DoubleInt>();
      break;
    case R::kPairI64I32:
      info->blocks = pair_blocks<LongInt>();
      break;
    case R::kPairI16I32:
      info->blocks = pair_blocks<ShortInt>();
      break;
    case R::kPairI32I32:
      info->blocks = pair_blocks<IntInt>();
      break;
    case R::kPairF80I32:
      info->blocks = pair_blocks<LongDoubleInt>();
      break;
    case R::kPairF32F32:
      info->blocks = pair_blocks<FloatFloat>();
      break;
    case R::kPairF64F64:
      info->blocks = pair_blocks<DoubleDouble>();
      break;
    default:
      info->blocks = {{0, static_cast<MPI_Aint>(info->size)}};
      break;
  }
  MPI_Aint covered = 0;
  for (const Block& b : info->blocks)
    covered += b.len;
  const uint32_t rs = repr_size(e.repr);
  const bool pair = e.cat == C::kPair;
  const bool size_ok = e.repr == R::kBytes || (pair ? rs == static_cast<uint32_t>(info->extent)
                                                    : rs == static_cast<uint32_t>(info->size));
  if (covered != info->size || !size_ok) {
    // The host disagrees with the C layout we assumed: move bytes only, never reduce.
    OSPREY_LOG(1, "predefined datatype with unexpected layout; treated as opaque bytes");
    info->blocks = {{info->true_lb, static_cast<MPI_Aint>(info->size)}};
    info->cat = C::kOpaque;
    info->repr = R::kBytes;
  }
  info->ops = op_mask(info->cat) & static_cast<uint16_t>(~host_refused_ops(e.type));
  info->elem_size = static_cast<uint32_t>(info->size);
  info->dense = info->blocks.size() == 1 && info->size == info->extent;
  // Alignment is checked per access; here only whether the width allows atomics at all.
  const uint32_t width = element_bytes(info->repr, info->elem_size);
  static const char probe[16] __attribute__((aligned(16))) = {};
  // A power of two, which the fast paths' alignment mask relies on (window_fast.h).
  if (lock_free(info->repr, info->elem_size, probe) && (width & (width - 1)) == 0)
    info->atomic_width = width;
  std::size_t i = detail::predefined_slot(handle_key(e.type));
  while (detail::predefined_slots[i])
    i = (i + 1) & (detail::kPredefinedSlots - 1);
  detail::predefined_slots[i] = info.release();  // immortal
}

}  // namespace

void init_predefined() {
  static const bool done = [] {
    const Entry entries[] = {
        // MPICH reduces MPI_CHAR and MPI_CHARACTER as (signed) C chars: so does osprey.
        {MPI_CHAR, C::kInteger, R::kI8},
        {MPI_WCHAR, C::kOpaque, R::kBytes},
        {MPI_PACKED, C::kOpaque, R::kBytes},
        {MPI_CHARACTER, C::kInteger, R::kI8},
        {MPI_BYTE, C::kByte, R::kU8},
        {MPI_SIGNED_CHAR, C::kInteger, R::kI8},
        {MPI_UNSIGNED_CHAR, C::kInteger, R::kU8},
        {MPI_SHORT, C::kInteger, R::kI16},
        {MPI_UNSIGNED_SHORT, C::kInteger, R::kU16},
        {MPI_INT, C::kInteger, R::kI32},
        {MPI_UNSIGNED, C::kInteger, R::kU32},
        {MPI_LONG, C::kInteger, sizeof(long) == 8 ? R::kI64 : R::kI32},
        {MPI_UNSIGNED_LONG, C::kInteger, sizeof(long) == 8 ? R::kU64 : R::kU32},
        {MPI_LONG_LONG_INT, C::kInteger, R::kI64},
        {MPI_UNSIGNED_LONG_LONG, C::kInteger, R::kU64},
        {MPI_INT8_T, C::kInteger, R::kI8},
        {MPI_INT16_T, C::kInteger, R::kI16},
        {MPI_INT32_T, C::kInteger, R::kI32},
        {MPI_INT64_T, C::kInteger, R::kI64},
        {MPI_UINT8_T, C::kInteger, R::kU8},
        {MPI_UINT16_T, C::kInteger, R::kU16},
        {MPI_UINT32_T, C::kInteger, R::kU32},
        {MPI_UINT64_T, C::kInteger, R::kU64},
        {MPI_AINT, C::kInteger, R::kI64},
        {MPI_OFFSET, C::kInteger, R::kI64},
        {MPI_COUNT, C::kInteger, R::kI64},
        {MPI_INTEGER, C::kInteger, R::kI32},
        {MPI_INTEGER1, C::kInteger, R::kI8},
        {MPI_INTEGER2, C::kInteger, R::kI16},
        {MPI_INTEGER4, C::kInteger, R::kI32},
        {MPI_INTEGER8, C::kInteger, R::kI64},
        {MPI_FLOAT, C::kFloating, R::kF32},
        {MPI_DOUBLE, C::kFloating, R::kF64},
        {MPI_LONG_DOUBLE, C::kFloating, R::kF80},
        {MPI_REAL, C::kFloating, R::kF32},
        {MPI_DOUBLE_PRECISION, C::kFloating, R::kF64},
        {MPI_REAL4, C::kFloating, R::kF32},
        {MPI_REAL8, C::kFloating, R::kF64},
        {MPI_REAL16, C::kFloating, R::kF128},
        {MPI_C_FLOAT_COMPLEX, C::kComplex, R::kC32},
        {MPI_C_DOUBLE_COMPLEX, C::kComplex, R::kC64},
        {MPI_C_LONG_DOUBLE_COMPLEX, C::kComplex, R::kC80},
        {MPI_CXX_FLOAT_COMPLEX, C::kComplex, R::kC32},
        {MPI_CXX_DOUBLE_COMPLEX, C::kComplex, R::kC64},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, C::kComplex, R::kC80},
        {MPI_COMPLEX, C::kComplex, R::kC32},
        {MPI_DOUBLE_COMPLEX, C::kComplex, R::kC64},
        {MPI_COMPLEX8, C::kComplex, R::kC32},
        {MPI_COMPLEX16, C::kComplex, R::kC64},
        {MPI_COMPLEX32, C::kComplex, R::kC128},
        {MPI_C_BOOL, C::kLogical, R::kBool8},
        {MPI_CXX_BOOL, C::kLogical, R::kBool8},
        {MPI_LOGICAL, C::kLogical, R::kLogical4},
        {MPI_FLOAT_INT, C::kPair, R::kPairF32I32},
        {MPI_DOUBLE_INT, C::kPair, R::kPairF64I32},
        {MPI_LONG_INT, C::kPair, R::kPairI64I32},
        {MPI_SHORT_INT, C::kPair, R::kPairI16I32},
        {MPI_2INT, C::kPair, R::kPairI32I32},
        {MPI_LONG_DOUBLE_INT, C::kPair, R::kPairF80I32},
        {MPI_2INTEGER, C::kPair, R::kPairI32I32},
        {MPI_2REAL, C::kPair, R::kPairF32F32},
        {MPI_2DOUBLE_PRECISION, C::kPair, R::kPairF64F64},
#ifdef MPIX_C_FLOAT16
        {MPIX_C_FLOAT16, C::kOpaque, R::kBytes},
#endif
    };
    for (const Entry& e : entries)
      add(e);
    return true;
  }();
  (void)done;
}

namespace detail {
const TypeInfo* predefined_slots[kPredefinedSlots];
}  // namespace detail

const TypeInfo* basic_type(Repr repr, uint32_t elem_size) {
  // One entry per representation, found once (opaque bytes: also by size).
  static const TypeInfo* by_repr[64][4] = {};
  const auto r = static_cast<std::size_t>(repr);
  const std::size_t k = repr == Repr::kBytes ? (elem_size == 1   ? 0
                                                : elem_size == 2 ? 1
                                                : elem_size == 4 ? 2
                                                                 : 3)
                                             : 0;
  if (r < 64 && by_repr[r][k] && by_repr[r][k]->elem_size == elem_size) return by_repr[r][k];
  for (const TypeInfo* t : detail::predefined_slots) {
    if (t && t->repr == repr && t->elem_size == elem_size && t->cat != Category::kNone) {
      if (r < 64) by_repr[r][k] = t;
      return t;
    }
  }
  return nullptr;
}

}  // namespace osprey::dt
