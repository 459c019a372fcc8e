// Applying an accumulate operation to one basic element of a target window: with lock-free
// CPU atomics where the element allows them, or as a plain read-modify-write that the caller
// protects with the element's lock stripe. Every updater of an element makes the same choice
// (it depends only on the element's kind and address), so both kinds never mix on an element.
#pragma once

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
void apply_atomic(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin,
                  void* old);
void apply_plain(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin,
                 void* old);

// If *target equals *compare, *target becomes *origin; *old receives the previous value.
void cas_atomic(Repr r, uint32_t data_bytes, void* target, const void* origin,
                const void* compare, void* old);
void cas_plain(Repr r, uint32_t data_bytes, void* target, const void* origin,
               const void* compare, void* old);

// Copies one element's data bytes (pairs: both fields, never their padding).
void copy_element(Repr r, uint32_t data_bytes, void* dst, const void* src);

}  // namespace osprey::dt
