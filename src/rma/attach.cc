// Dynamic windows: each rank keeps its attached regions in its attach table (shm/attach_table.h)
// so that node peers can check an access before touching the memory, and so can the rank
// itself when a request arrives on the message path.
//
// A region whose pages hold nothing else moves into a shared memory file in place at attach
// (user_memory::share_in_place, as MPI_Win_create windows do), and MPI_Alloc_mem memory is one
// already: node peers then map the file and every rank reaches the region with loads, stores
// and CPU atomics. Every rank decides by the same table entry, so stripes and CPU atomics never
// mix on one region. Other regions stay private, reached by cross-memory attach.
#include <atomic>

#include "rma/paths.h"
#include "rma/window.h"
#include "transport/shm/user_memory.h"
#include "util/config.h"

namespace osprey::rma {
namespace {

std::atomic<uint64_t> next_region_id{1};

}  // namespace

Status Window::attach(void* base, MPI_Aint size) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_attach needs a dynamic window");
  if (size < 0) return Err(MPI_ERR_SIZE, "osprey: negative size to attach");
  shm::AttachedRegion r;
  r.base = reinterpret_cast<uint64_t>(base);
  r.len = static_cast<uint64_t>(size);
  r.id = next_region_id.fetch_add(1, std::memory_order_relaxed);
  // Not worth a copy when no peer maps it; and a region that touches another stays private, so
  // that an access spanning both (they count as one) has one kind of memory more often.
  shm::user_memory::Region file;
  bool moved = false;
  if (r.len > 0 && ci_->node_size() > 1 && !force_am_ && attach_.alone(r.base, r.len) &&
      shm::user_memory::share_in_place(base, r.len, config().share_in_place, &file, &moved)) {
    r.fd = file.fd;
    r.moved = moved;
    r.file_base = file.base;
    r.file_len = file.len;
  }
  const Status st = attach_.insert(r);
  if (!st.ok()) {
    if (r.moved) shm::user_memory::release_in_place(r.file_base);
    return st;
  }
  if (!r.shared()) shm::user_memory::expose(r.base, r.len);
  return kOk;
}

void Window::release_attached(const shm::AttachedRegion& r) {
  if (r.moved)
    shm::user_memory::release_in_place(r.file_base);
  else if (!r.shared())
    shm::user_memory::unexpose(r.base, r.len);
}

Status Window::detach(const void* base) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_detach needs a dynamic window");
  shm::AttachedRegion r;
  if (!attach_.erase(reinterpret_cast<uint64_t>(base), &r))
    return Err(MPI_ERR_ARG, "osprey: MPI_Win_detach of memory that is not attached");
  release_attached(r);
  return kOk;
}

Status Window::resolve_dynamic(TargetView& t, uint64_t lo, uint64_t hi, uint64_t* where,
                               DynamicTarget* hint) {
  shm::AttachLookup f;
  const uint32_t local = static_cast<uint32_t>(t.local);
  OSPREY_TRY(attach_.find(local, lo, hi, &f));
  if (!f.inside) return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
  // An access spanning several regions stays on t's path (docs/NOTES.md).
  if (!f.single) t.spans_shared = f.shared;
  if (!f.single || !f.region.shared()) return kOk;
  char* at = reinterpret_cast<char*>(f.region.file_base);
  if (t.local != ci_->node_rank()) {
    OSPREY_TRY(peer_regions_.map(attach_, local, t.pid, f.region, &at));
    // Accumulates this origin left for t (acc_stage.h) apply first: accumulate_ordering.
    if (stage_.pending()) {
      OSPREY_TRY(cma_queue_.drain(local));
      OSPREY_TRY(stage_.settle(t));
    }
  }
  if (hint) *hint = {f.seq, f.region.base, f.region.base + f.region.len, at, f.region.file_base};
  t.path = direct_path();
  t.dynamic = false;
  t.cpu_atomics = true;
  t.base = at;
  t.remote_base = f.region.file_base;  // stripes keyed by the owner's addresses (stripe_key)
  *where -= f.region.file_base;
  return kOk;
}

}  // namespace osprey::rma
