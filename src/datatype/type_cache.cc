// The per-handle cache of TypeInfo. MPI_Type_free (interposed, mpi/type_free.cc) drops a
// handle's entry before the host frees it, so a handle the host reuses is never served stale
// info. (A delete attribute on each type did the same, but setting it cost more than the rest
// of a put with a fresh type under Open MPI: 0.17 us of the host's attribute tables.)
#include <atomic>
#include <memory>

#include "datatype/flatten.h"
#include "datatype/type_info.h"
#include "util/handle_key.h"
#include "util/handle_map.h"

namespace osprey::dt {
namespace {

HandleMap<const TypeInfo>& cache() {
  static auto* m = new HandleMap<const TypeInfo>;  // lives until exit
  return *m;
}

// Two threads that decode the same handle at once both build it; the first to insert wins and
// the other drops its copy (no lock around the decoding: a fresh type per operation paid two
// lock pairs for it, and MPI_Type_free two more).
const TypeInfo* build(MPI_Datatype t, Status* err) {
  auto info = std::make_unique<TypeInfo>();
  info->handle = t;
  PMPI_Type_size_x(t, &info->size);
  PMPI_Type_get_extent(t, &info->lb, &info->extent);
  Status s = flatten(t, *info);
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
  const TypeInfo* mine = info.get();
  const TypeInfo* held = cache().insert_if_absent(handle_key(t), mine);
  if (held == mine) info.release();
  return held;
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

void forget(MPI_Datatype t) {
  const uint64_t key = handle_key(t);
  if (!cache().find(key)) return;  // most frees: osprey's own layout types, never cached
  if (const TypeInfo* info = cache().erase(key)) release(info);
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
