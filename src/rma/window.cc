// Target resolution and range checks shared by every operation; window queries.
#include "rma/window.h"

#include "rma/paths.h"
#include "rma/registry.h"
#include "rma/runtime.h"
#include "util/cpu.h"

namespace osprey::rma {

Window::~Window() {
  release_resources();
}

void Window::release_resources() {
  served_.stop();
  if (group_ != MPI_GROUP_NULL && !runtime_finalized()) PMPI_Group_free(&group_);
  unmap_user_memory();
  release_user_memory();
  seg_.release();
  if (ci_) ci_->release();
  ci_ = nullptr;
}

bool Window::am_advance(am::Endpoint& ep) {
  if (!am_) return false;
  AmGuard g(am_->mu);
  return am_advance_target(ep) | am_advance_origin();
}

const char* Window::paths_in_use() const {
  if (force_am_) return "am";
  bool cma = false, am = !ci_->all_on_node();
  for (TargetPath* p : local_paths_) {
    cma |= p == cma_path();
    am |= p == message_path();
  }
  return cma ? (am ? "shm+cma+am" : "shm+cma") : (am ? "shm+am" : "shm");
}

TargetPath* Window::path_to(int local, const shm::RankInfo* ri) const {
  if (local < 0 || force_am_) return message_path();
  if (ri->kind == shm::MemKind::kSegment || local == ci_->node_rank() || user_shared(local))
    return direct_path();
  return ci_->cma_ok() ? cma_path() : message_path();
}

Status Window::target(int rank, TargetView& t) const {
  if (rank < 0 || rank >= nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  t.rank = rank;
  t.local = ci_->local_index(rank);
  t.dynamic = flavor_ == Flavor::kDynamic;
  if (t.local < 0) {
    t.path = remote_path_;
    t.cpu_atomics = false;
    t.size = static_cast<uint64_t>(remote_.size(rank));
    t.disp_unit = remote_.disp_unit(rank);
    return kOk;
  }
  const shm::RankInfo& ri = view_.info(static_cast<uint32_t>(t.local));
  t.path = local_paths_[static_cast<std::size_t>(t.local)];
  t.size = ri.size;
  t.disp_unit = ri.disp_unit;
  t.pid = ri.pid;
  t.cpu_atomics = ri.kind == shm::MemKind::kSegment;
  if (ri.kind == shm::MemKind::kSegment) {
    t.base = view_.data(ri.data_offset);
  } else if (user_shared(t.local)) {
    // Mapped here too; stripes are keyed by the owner's addresses (stripe_key), alike
    // everywhere.
    t.cpu_atomics = true;
    t.remote_base = ri.user_base;
    t.base = t.local == ci_->node_rank()
                 ? reinterpret_cast<char*>(ri.user_base)
                 : user_maps_[static_cast<std::size_t>(t.local)].addr + ri.share_off;
  } else {
    t.remote_base = ri.kind == shm::MemKind::kPrivate ? ri.user_base : 0;
    t.base = reinterpret_cast<char*>(t.remote_base);  // used only when it is this process
  }
  return kOk;
}

Status Window::locate(TargetView& t, MPI_Aint disp, MPI_Count count, const dt::TypeInfo& tt,
                      uint64_t* where) {
  if (!t.dynamic && disp < 0) return Err(MPI_ERR_DISP, "osprey: negative target displacement");
  if (count == 0 || tt.size == 0) {
    *where = 0;
    return kOk;
  }
  // Common case first: a dense type at a non-negative displacement, in 64-bit arithmetic.
  // (A dense derived type's data may start anywhere: hindexed at a far displacement.)
  int64_t start, bytes, first;
  if (!t.dynamic && tt.dense && !__builtin_mul_overflow(disp, t.disp_unit, &start) &&
      !__builtin_mul_overflow(count, tt.size, &bytes)) {
    if (__builtin_add_overflow(start, tt.true_lb, &first) || first < 0 ||
        first > static_cast<int64_t>(t.size) || bytes > static_cast<int64_t>(t.size) - first)
      return Err(MPI_ERR_RMA_RANGE, "osprey: access reaches past the target's window");
    *where = static_cast<uint64_t>(start);
    return kOk;
  }
  int64_t lo_rel, hi_rel;  // a span past 64 bits reaches past any window or attached region
  if (!dt::element_span(count, tt, &lo_rel, &hi_rel))
    return Err(MPI_ERR_RMA_RANGE, "osprey: access reaches past the target's window");
  const __int128 base = t.dynamic ? static_cast<__int128>(static_cast<uint64_t>(disp))
                                  : static_cast<__int128>(disp) * t.disp_unit;
  const __int128 lo = base + lo_rel, hi = base + hi_rel;
  if (t.dynamic) {
    if (lo < 0 || hi > static_cast<__int128>(UINT64_MAX))
      return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
    // Node peers reached directly are checked here, in their attach tables; a target on the
    // message path checks when the request may run (it may attach until its epoch begins).
    *where = static_cast<uint64_t>(base);
    if (t.path->messages()) return kOk;
    // What this origin resolved is its fast path's from now on (a target serving requests
    // for its own memory, am_target.cc, may run on the progress thread: it keeps nothing).
    return resolve_dynamic(t, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi), where,
                           dynamic_fast_.empty() ? nullptr : &dynamic_fast_[t.local]);
  }
  if (lo < 0 || hi > static_cast<__int128>(t.size))
    return Err(MPI_ERR_RMA_RANGE, "osprey: access reaches past the target's window");
  *where = static_cast<uint64_t>(base);
  return kOk;
}

Status Window::check_access(const TargetView& t) {
  // Every operation that leaves the fast paths (the inlined one, and derived types toward the
  // same targets, fast_typed_address) passes here: node peers waiting for this process to
  // apply what they left in its slots (served_ops.h) need not wait for its next
  // synchronization, nor for the system calls this operation may make.
  serve_if_any();
  switch (access_) {
    case Access::kNone:
      return Err(MPI_ERR_RMA_SYNC, "osprey: RMA call outside an access epoch");
    case Access::kFence:
      fence_.note_op();
      return kOk;
    case Access::kLock: {
      LockEntry* e = passive_.find(t.rank);
      if (!e) return Err(MPI_ERR_RMA_SYNC, "osprey: RMA call to a target that is not locked");
      if (e->nocheck || e->held.load(std::memory_order_acquire)) return kOk;
      return t.path->lock(*this, t, *e);
    }
    case Access::kLockAll:
      if (passive_.lockall_nocheck() || (t.local >= 0 && passive_.lockall_holds(t.local)))
        return kOk;
      return t.path->lock_all_touch(*this, t);
    case Access::kPscw:
      return pscw_.access(t);
  }
  return kOk;
}

Status Window::leave_fence_for(const char* what) {
  if (access_ == Access::kFence && !fence_.has_ops()) {
    access_.store(
        Access::kNone,
        std::memory_order_release);  // an empty fence epoch may be left for any other kind
    return kOk;
  }
  if (access_ == Access::kNone) return kOk;
  return Err(MPI_ERR_RMA_SYNC, what);
}

Status Window::sync() {
  cpu::mem_sync();
  serve_requests();
  return kOk;
}

Status Window::check_request_epoch() const {
  if (access_ != Access::kLock && access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC,
               "osprey: request-based RMA calls need a passive-target (lock) epoch");
  return kOk;
}

Status Window::shared_query(int rank, MPI_Aint* size, MPI_Aint* disp_unit, void** base) const {
  if (flavor_ != Flavor::kShared)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_shared_query needs an allocate_shared window");
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= nranks_))
    return Err(MPI_ERR_RANK, "osprey: rank is outside the window's group");
  int local = -1;
  if (rank == MPI_PROC_NULL) {
    // The lowest rank that allocated memory; else the first rank's (empty) segment.
    local = 0;
    for (int i = 0; i < ci_->node_size(); ++i) {
      if (view_.info(static_cast<uint32_t>(i)).size > 0) {
        local = i;
        break;
      }
    }
  } else {
    local = ci_->local_index(rank);
  }
  const shm::RankInfo& ri = view_.info(static_cast<uint32_t>(local));
  *size = static_cast<MPI_Aint>(ri.size);
  *disp_unit = static_cast<MPI_Aint>(ri.disp_unit);
  *base = ri.size ? view_.data(ri.data_offset) : nullptr;  // as MPICH: no memory, no address
  return kOk;
}

Status Window::get_group(MPI_Group* group) const {
  PMPI_Comm_group(ci_->priv(), group);
  return kOk;
}

Status Window::get_info(MPI_Info* info) const {
  write_hints(hints_, path_name(), info);
  return kOk;
}

Status Window::set_info(MPI_Info info) {
  // Every key is recorded and echoed by get_info, as MPICH does; what a key can no longer
  // change (the memory layout) stays as created.
  return hints_.read(info);
}

}  // namespace osprey::rma
