// Applying an accumulate operation to one basic element of a target window: with lock-free
// CPU atomics where the element allows them, or as a plain read-modify-write that the caller
// protects with the element's lock stripe. Every updater of an element makes the same choice
// (it depends only on the element's kind and address), so both kinds never mix on an element;
// the one exception, apply_plain_array, serves a caller that has the memory to itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "datatype/basic.h"
#include "datatype/ops.h"

namespace osprey::dt {

// Bytes one element occupies in memory (pairs include their padding).
inline uint32_t element_bytes(Repr r, uint32_t data_bytes) {
  return r == Repr::kBytes ? data_bytes : repr_size(r);
}

// True if elements of this kind at addr can be updated with lock-free CPU atomics.
bool lock_free(Repr r, uint32_t data_bytes, const void* addr);

// *old (if not null) receives the element's value before the operation.
void apply_atomic(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin, void* old);
void apply_plain(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin, void* old);
// apply_plain over `count` contiguous elements, for a caller that knows nothing else updates
// them meanwhile (an exclusive lock on the window, or rma/acc_gate.h): far faster than an
// atomic per element once there are more than a few. `old` (if not null) receives the
// elements' previous values, contiguous as well.
void apply_plain_array(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin,
                       std::size_t count, void* old = nullptr);

// If *target equals *compare, *target becomes *origin; *old receives the previous value.
void cas_atomic(Repr r, uint32_t data_bytes, void* target, const void* origin, const void* compare,
                void* old);
void cas_plain(Repr r, uint32_t data_bytes, void* target, const void* origin, const void* compare,
               void* old);

// One-instruction atomics on integer elements (sum, bitwise ops, replace, read), inline for
// the fast path; false if the combination needs the general apply_atomic.
inline bool integer_atomic(uint32_t width, Op op, void* target, const void* origin, void* old) {
  auto run = [&](auto zero) -> bool {
    using W = decltype(zero);
    W* t = static_cast<W*>(target);
    W x = 0, prev;
    if (op != Op::kNoOp) __builtin_memcpy(&x, origin, sizeof x);
    switch (op) {
      case Op::kSum:
        prev = __atomic_fetch_add(t, x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBand:
        prev = __atomic_fetch_and(t, x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBor:
        prev = __atomic_fetch_or(t, x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBxor:
        prev = __atomic_fetch_xor(t, x, __ATOMIC_SEQ_CST);
        break;
      case Op::kReplace:
        prev = __atomic_exchange_n(t, x, __ATOMIC_SEQ_CST);
        break;
      case Op::kNoOp:
        prev = __atomic_load_n(t, __ATOMIC_SEQ_CST);
        break;
      default:
        return false;
    }
    if (old) __builtin_memcpy(old, &prev, sizeof prev);
    return true;
  };
  switch (width) {
    case 8:
      return run(uint64_t{0});
    case 4:
      return run(uint32_t{0});
    case 2:
      return run(uint16_t{0});
    case 1:
      return run(uint8_t{0});
    default:
      return false;
  }
}

// Copies one element's data bytes (pairs: both fields, never their padding).
void copy_element(Repr r, uint32_t data_bytes, void* dst, const void* src);

}  // namespace osprey::dt
