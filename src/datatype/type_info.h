// What osprey knows about an MPI datatype: sizes, the exact bytes one element covers (in type
// map order, as strided blocks) and the basic element it is made of. Cached per handle.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/basic.h"
#include "util/handle_key.h"
#include "util/status.h"

namespace osprey::dt {

// A strided block: n1 * n2 runs of `len` bytes, the run (i1, i2) at off + i1 * s1 + i2 * s2, in
// type map order i2 outer, i1 inner. A vector, a 2-D subarray or a vector of vectors is one
// such block, so decoding and the wire form cost the type's description, not its run count.
// A plain block has n1 = n2 = 1.
struct Block {
  MPI_Aint off;  // from the buffer address
  MPI_Aint len;
  int64_t n1 = 1;
  MPI_Aint s1 = 0;
  int64_t n2 = 1;
  MPI_Aint s2 = 0;

  bool operator==(const Block&) const = default;
  bool plain() const { return n1 == 1 && n2 == 1; }
  int64_t runs() const { return n1 * n2; }
  MPI_Aint bytes() const { return len * n1 * n2; }
  // The lowest and highest (one past) byte offsets the runs touch.
  MPI_Aint lowest() const {
    return off + (s1 < 0 ? (n1 - 1) * s1 : 0) + (s2 < 0 ? (n2 - 1) * s2 : 0);
  }
  MPI_Aint highest() const {
    return off + len + (s1 > 0 ? (n1 - 1) * s1 : 0) + (s2 > 0 ? (n2 - 1) * s2 : 0);
  }
};

// The bytes a block list touches, as MPI's true lower bound and true extent; false (and both
// 0) for a list without data.
inline bool data_span(const std::vector<Block>& blocks, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  MPI_Aint lo = 0, hi = 0;
  for (const Block& b : blocks) {
    lo = &b == &blocks[0] ? b.lowest() : std::min(lo, b.lowest());
    hi = &b == &blocks[0] ? b.highest() : std::max(hi, b.highest());
  }
  *true_lb = lo;
  *true_extent = hi - lo;
  return !blocks.empty();
}

// Walks the runs of a block list in type map order: one add and a compare per run.
class BlockRuns {
 public:
  explicit BlockRuns(const std::vector<Block>& b) : b_(b) {}
  // The next run's offset and length, or false at the end (then restart() to walk again).
  bool next(MPI_Aint& off, MPI_Aint& len) {
    if (k_ >= b_.size()) return false;
    const Block& b = b_[k_];
    off = b.off + i1_ * b.s1 + i2_ * b.s2;
    len = b.len;
    if (++i1_ == b.n1) {
      i1_ = 0;
      if (++i2_ == b.n2) {
        i2_ = 0;
        ++k_;
      }
    }
    return true;
  }
  void restart() { k_ = 0, i1_ = 0, i2_ = 0; }

 private:
  const std::vector<Block>& b_;
  std::size_t k_ = 0;
  int64_t i1_ = 0, i2_ = 0;
};

struct TypeInfo {
  // The handle decoded (a shared decoding keeps its first handle's, which may be freed since:
  // only predefined entries are looked up by it).
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  MPI_Count size = 0;  // data bytes per element
  MPI_Aint lb = 0, extent = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  bool predefined = false;
  bool dense = false;  // `count` elements occupy one contiguous run of count*size bytes
  Category cat = Category::kNone;
  Repr repr = Repr::kNone;
  uint16_t ops = 0;           // the operations accumulates may apply: bit 1 << dt::Op
  uint32_t elem_size = 0;     // data bytes per basic element
  uint32_t atomic_width = 0;  // predefined: bytes a lock-free CPU atomic covers, 0 if none
  std::vector<Block> blocks;  // one element's data bytes, in type map order (strided blocks)
  uint64_t id = 0;            // unique in this process and never reused (see next_type_id)
  // The constructor key it was decoded under (constructor_memo.h), empty if none: a handle of
  // it the program frees may be kept for the next constructor called alike (type_pool.h).
  uint64_t key_hash = 0;
  std::vector<uint64_t> key_words;

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

// A fresh TypeInfo id: message-path layout caches name a layout by it, so an id is never given
// twice (a freed handle the host reuses gets a new TypeInfo and a new id, unless it is built
// like a type decoded before: then it shares that decoding, layout and id included,
// constructor_memo.h).
uint64_t next_type_id();

// Drops what is cached for t, which is about to be freed (its handle may then be reused).
void forget(MPI_Datatype t);

// Whether this thread, decoding a type, is freeing a handle a contents query returned (then the
// binding's free keeps its cache entry: under MPICH it is the program's own type).
bool freeing_returned_handle();

// What is cached for derived type t (no decoding), retained for the caller; nullptr if none.
// Safe against a forget(t) in another thread (osprey frees handles MPICH's
// MPI_Type_get_contents returned, which may be the program's).
const TypeInfo* retain_cached(MPI_Datatype t);

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
