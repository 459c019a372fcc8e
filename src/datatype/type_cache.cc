// The per-handle cache of TypeInfo. MPI_Type_free (interposed, mpi/type_free.cc) drops a
// handle's entry before the host frees it, so a handle the host reuses is never served stale
// info. (A delete attribute on each type did the same, but setting it cost more than the rest
// of a put with a fresh type under Open MPI: 0.17 us of the host's attribute tables.)
#include <atomic>
#include <memory>

#include "datatype/constructor_memo.h"
#include "datatype/flatten.h"
#include "datatype/type_info.h"
#include "util/handle_key.h"
#include "util/handle_map.h"
#include "util/spin_mutex.h"

namespace osprey::dt {
namespace {

// Built at load time, before any type can be looked up (MPI_Init comes later), and never
// destroyed: a function-local static cost every lookup a call and a guard check.
HandleMap<const TypeInfo>& cache_map = *new HandleMap<const TypeInfo>;

inline HandleMap<const TypeInfo>& cache() {
  return cache_map;
}

// Orders a forget's erase against retain_cached's find and retain, so that what the latter
// finds is not released under it.
SpinMutex forget_mu;

// Enters `info` (one reference of the caller's) as t's entry. Two threads that decode the same
// handle at once both build it; the first to enter it wins and the other drops its copy (no
// lock around the decoding: a fresh type per operation paid two lock pairs for it, and
// MPI_Type_free two more).
const TypeInfo* enter(MPI_Datatype t, const TypeInfo* info) {
  const TypeInfo* held = cache().insert_if_absent(handle_key(t), info);
  if (held != info) release(info);
  return held;
}

const TypeInfo* build(MPI_Datatype t, Status* err) {
  Contents c = read_contents(t);
  ConstructorKey key;
  const bool keyed = constructor_key(c, &key);
  if (keyed)
    if (const TypeInfo* same = memo_find(key)) return enter(t, same);
  auto info = std::make_unique<TypeInfo>();
  info->handle = t;
  PMPI_Type_size_x(t, &info->size);
  PMPI_Type_get_extent(t, &info->lb, &info->extent);
  Status s = flatten(c, *info);
  if (!s.ok()) {
    *err = s;
    return nullptr;
  }
  // The data's span is the blocks' (as for a layout from the wire, am_target.cc); a type
  // without data asks the host.
  if (!data_span(info->blocks, &info->true_lb, &info->true_extent))
    PMPI_Type_get_true_extent(t, &info->true_lb, &info->true_extent);
  info->dense = info->size == 0 ||
                (info->blocks.size() == 1 && info->blocks[0].plain() && info->size == info->extent);
  info->id = next_type_id();
  if (keyed) {
    info->key_hash = key.hash;
    info->key_words.assign(key.words.begin(), key.words.end());
    memo_keep(key, info.get());
  }
  return enter(t, info.release());
}

}  // namespace

namespace detail {

const TypeInfo* lookup_derived(MPI_Datatype t, Status* err) {
  if (const TypeInfo* hit = cache().find(handle_key(t))) return hit;
  if (t == MPI_DATATYPE_NULL) {
    *err = Err(MPI_ERR_TYPE, "osprey: MPI_DATATYPE_NULL is not a valid RMA datatype");
    return nullptr;
  }
  return build(t, err);
}

}  // namespace detail

void adopt_decoding(MPI_Datatype t, const ConstructorKey& k) {
  const TypeInfo* same = memo_find(k);
  if (!same) return;
  const uint64_t key = handle_key(t);
  const TypeInfo* held = cache().insert_if_absent(key, same);
  if (held == same) return;
  // t is new: what it maps to is of a type freed where osprey did not see it (both hosts' C and
  // Fortran frees reach MPI_Type_free here), given out again since. A check at every
  // constructor, adopted or not, cost a probe of the map (150 instructions) each.
  cache().insert(key, same);
  release(held);
}

const TypeInfo* retain_cached(MPI_Datatype t) {
  const uint64_t key = handle_key(t);
  if (!cache().find(key)) return nullptr;
  forget_mu.lock();
  const TypeInfo* info = cache().find(key);
  if (info) retain(info);
  forget_mu.unlock();
  return info;
}

void forget(MPI_Datatype t) {
  const uint64_t key = handle_key(t);
  if (!cache().find(key)) return;  // most frees: osprey's own layout types, never cached
  forget_mu.lock();
  const TypeInfo* info = cache().erase(key);
  forget_mu.unlock();
  if (info) release(info);
}

uint64_t next_type_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void retain(const TypeInfo* t) {
  if (!t->predefined) t->refs.fetch_add(1, std::memory_order_relaxed);
}

void release(const TypeInfo* t) {
  if (!t->predefined && t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
}

}  // namespace osprey::dt
