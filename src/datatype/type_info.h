// What osprey knows about an MPI datatype: sizes, the exact bytes one element covers (in type
// map order) and the basic element it is made of. Cached per handle.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "datatype/basic.h"
#include "util/handle_key.h"
#include "util/status.h"

namespace osprey::dt {

struct Block {
  MPI_Aint off;  // from the buffer address
  MPI_Aint len;
};

struct TypeInfo {
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  MPI_Count size = 0;  // data bytes per element
  MPI_Aint lb = 0, extent = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  bool predefined = false;
  bool dense = false;  // `count` elements occupy one contiguous run of count*size bytes
  Category cat = Category::kNone;
  Repr repr = Repr::kNone;
  uint32_t elem_size = 0;     // data bytes per basic element
  uint32_t atomic_width = 0;  // predefined: bytes a lock-free CPU atomic covers, 0 if none
  std::vector<Block> blocks;  // one element's data bytes, in type map order
  uint64_t id = 0;            // unique in this process and never reused (see next_type_id)

  mutable std::atomic<int> refs{1};
};

namespace detail {
// Predefined types, direct-mapped by handle: filled once at initialization (before any RMA
// call can run), read-only afterwards, so lookups need no synchronization.
constexpr std::size_t kPredefinedSlots = 512;
extern const TypeInfo* predefined_slots[kPredefinedSlots];
inline std::size_t predefined_slot(uint64_t key) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 55);
}
const TypeInfo* lookup_derived(MPI_Datatype t, Status* err);
}  // namespace detail

// The predefined entry for a named datatype, or nullptr.
inline const TypeInfo* predefined(MPI_Datatype t) {
  for (std::size_t i = detail::predefined_slot(handle_key(t));;
       i = (i + 1) & (detail::kPredefinedSlots - 1)) {
    const TypeInfo* p = detail::predefined_slots[i];
    if (!p || p->handle == t) return p;
  }
}

// The info for a datatype handle, computed and cached on first use; nullptr and *err set if
// the handle is not a datatype osprey can use for RMA.
inline const TypeInfo* lookup(MPI_Datatype t, Status* err) {
  if (const TypeInfo* p = predefined(t)) return p;
  return detail::lookup_derived(t, err);
}

// A fresh TypeInfo id: message-path layout caches name a datatype by it, so an id is never
// given twice (a freed handle the host reuses gets a new TypeInfo and a new id).
uint64_t next_type_id();

// Keep a TypeInfo alive while an operation that uses it is in flight (the user may free the
// datatype meanwhile).
void retain(const TypeInfo* t);
void release(const TypeInfo* t);

// Loads the predefined types; called once from osprey's initialization.
void init_predefined();

// A predefined type whose basic element is `repr` of `elem_size` data bytes (to lay out
// arrays of basic elements received in packed form), or nullptr.
const TypeInfo* basic_type(Repr repr, uint32_t elem_size);

}  // namespace osprey::dt
