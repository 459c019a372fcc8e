// The per-handle cache of TypeInfo. Derived types carry an attribute whose delete callback
// drops the entry, so a handle the host reuses after MPI_Type_free is never served stale info.
#include <atomic>
#include <memory>
#include <mutex>

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

std::mutex build_mu;
int keyval = MPI_KEYVAL_INVALID;

int on_type_delete(MPI_Datatype t, int, void* attr, void*) {
  const TypeInfo* info = static_cast<const TypeInfo*>(attr);
  cache().erase(handle_key(t));
  release(info);
  return MPI_SUCCESS;
}

const TypeInfo* build(MPI_Datatype t, Status* err) {
  std::lock_guard<std::mutex> g(build_mu);
  if (const TypeInfo* hit = cache().find(handle_key(t))) return hit;
  auto info = std::make_unique<TypeInfo>();
  info->handle = t;
  info->id = next_type_id();
  PMPI_Type_size_x(t, &info->size);
  PMPI_Type_get_extent(t, &info->lb, &info->extent);
  PMPI_Type_get_true_extent(t, &info->true_lb, &info->true_extent);
  Status s = flatten(t, *info);
  if (!s.ok()) {
    *err = s;
    return nullptr;
  }
  info->dense = info->size == 0 ||
                (info->blocks.size() == 1 && info->blocks[0].plain() && info->size == info->extent);
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, on_type_delete, &keyval, nullptr);
  const TypeInfo* raw = info.release();
  PMPI_Type_set_attr(t, keyval, const_cast<TypeInfo*>(raw));
  cache().insert(handle_key(t), raw);
  return raw;
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
