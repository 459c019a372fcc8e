// Dynamic windows: each rank publishes its attached regions in its table in the node segment
// under a sequence lock, so node peers can check an access before touching the memory.
#include "rma/window.h"
#include "util/cpu.h"

namespace osprey::rma {
namespace {

struct Region {
  uint64_t base, len;
};

// Consistent snapshot-free search: retries if the owner changed the table meanwhile.
template <class F>
bool read_table(const shm::SegmentView& v, uint32_t local, F&& visit) {
  const shm::AttachTableHeader& h = v.attach_header(local);
  const shm::AttachEntry* e = v.attach_entries(local);
  for (;;) {
    const uint64_t s1 = h.seq.load(std::memory_order_acquire);
    if (s1 & 1) {
      cpu::relax();
      continue;
    }
    bool found = false;
    // Acquire loads keep the reads above the second look at the sequence word.
    const uint32_t n = h.count.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n && i < v.layout().max_attach && !found; ++i)
      found = visit(Region{e[i].base.load(std::memory_order_acquire),
                           e[i].len.load(std::memory_order_acquire)});
    if (h.seq.load(std::memory_order_relaxed) == s1) return found;
  }
}

}  // namespace

Status Window::attach(void* base, MPI_Aint size) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_attach needs a dynamic window");
  if (size < 0) return Err(MPI_ERR_SIZE, "osprey: negative size to attach");
  const uint32_t me = static_cast<uint32_t>(ci_->node_rank());
  const uint64_t lo = reinterpret_cast<uint64_t>(base), hi = lo + static_cast<uint64_t>(size);
  const bool overlap = read_table(view_, me, [&](Region r) {
    return size > 0 && r.len > 0 && lo < r.base + r.len && r.base < hi;
  });
  if (overlap) return Err(MPI_ERR_RMA_ATTACH, "osprey: memory overlaps an attached region");
  shm::AttachTableHeader& h = view_.attach_header(me);
  const uint32_t n = h.count.load(std::memory_order_relaxed);
  if (n >= view_.layout().max_attach)
    return Err(MPI_ERR_RMA_ATTACH, "osprey: too many attached regions (raise OSPREY_MAX_ATTACH)");
  shm::AttachEntry& e = view_.attach_entries(me)[n];
  h.seq.fetch_add(1, std::memory_order_acq_rel);
  e.base.store(lo, std::memory_order_release);
  e.len.store(static_cast<uint64_t>(size), std::memory_order_release);
  h.count.store(n + 1, std::memory_order_release);
  h.seq.fetch_add(1, std::memory_order_release);
  return kOk;
}

Status Window::detach(const void* base) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_detach needs a dynamic window");
  const uint32_t me = static_cast<uint32_t>(ci_->node_rank());
  shm::AttachTableHeader& h = view_.attach_header(me);
  shm::AttachEntry* e = view_.attach_entries(me);
  const uint32_t n = h.count.load(std::memory_order_relaxed);
  const uint64_t b = reinterpret_cast<uint64_t>(base);
  for (uint32_t i = 0; i < n; ++i) {
    if (e[i].base.load(std::memory_order_relaxed) != b) continue;
    h.seq.fetch_add(1, std::memory_order_acq_rel);
    e[i].base.store(e[n - 1].base.load(std::memory_order_relaxed), std::memory_order_release);
    e[i].len.store(e[n - 1].len.load(std::memory_order_relaxed), std::memory_order_release);
    h.count.store(n - 1, std::memory_order_release);
    h.seq.fetch_add(1, std::memory_order_release);
    return kOk;
  }
  return Err(MPI_ERR_ARG, "osprey: MPI_Win_detach of memory that is not attached");
}

Status Window::check_dynamic_range(const TargetView& t, uint64_t lo, uint64_t hi) const {
  const bool inside = read_table(view_, static_cast<uint32_t>(t.local),
                                 [&](Region r) { return lo >= r.base && hi <= r.base + r.len; });
  if (!inside) return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
  return kOk;
}

}  // namespace osprey::rma
