// Passive target synchronization on node-local targets: lock words in the window segment, no
// messages. MPI_Win_lock records the epoch (the seed's LOCK_CALLED state) and the lock is taken
// by the first operation, so a lock/unlock pair without operations costs nothing; self locks
// and locks on shared-memory windows (whose memory the user may load and store directly) are
// taken at once. Flushes are memory barriers: node-local operations complete when issued.
#include "rma/shm_lock.h"
#include "rma/window.h"
#include "util/cpu.h"

namespace osprey::rma {

LockEntry* Window::find_lock(int rank) {
  for (LockEntry& e : locks_)
    if (e.rank == rank) return &e;
  return nullptr;
}

Status Window::leave_fence_for(const char* what) {
  if (access_ == Access::kFence && !fence_ops_) {
    access_ = Access::kNone;  // an empty fence epoch may be left for any other kind
    return kOk;
  }
  if (access_ == Access::kNone) return kOk;
  return Err(MPI_ERR_RMA_SYNC, what);
}

Status Window::acquire_lock(int local, int type) {
  shm::LockWords& l = view_.lock(static_cast<uint32_t>(local));
  if (type == MPI_LOCK_EXCLUSIVE)
    shm_lock::lock_exclusive(l);
  else
    shm_lock::lock_shared(l);
  cpu::mem_sync_beside_rmw();  // later accesses happen after the grant
  return kOk;
}

void Window::release_lock(const LockEntry& e) {
  if (!e.held || e.nocheck) return;
  cpu::mem_sync_beside_rmw();  // everything done in the epoch is visible before the release
  shm::LockWords& l = view_.lock(static_cast<uint32_t>(e.local));
  if (e.type == MPI_LOCK_EXCLUSIVE)
    shm_lock::unlock_exclusive(l);
  else
    shm_lock::unlock_shared(l);
}

Status Window::lock(int type, int rank, int assert) {
  if (type != MPI_LOCK_EXCLUSIVE && type != MPI_LOCK_SHARED)
    return Err(MPI_ERR_LOCKTYPE, "osprey: lock type must be MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED");
  if (assert & ~MPI_MODE_NOCHECK)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_lock");
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  const int local = ci_->local_index(rank);
  TargetView t;
  if (local < 0 || uses_am_) OSPREY_TRY(target(rank, t));
  if (access_ == Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_lock inside a lock_all epoch");
  if (access_ == Access::kLock) {
    if (find_lock(rank))
      return Err(MPI_ERR_RMA_SYNC, "osprey: this target is already locked by this process");
  } else {
    OSPREY_TRY(leave_fence_for("osprey: MPI_Win_lock inside a fence or PSCW epoch"));
  }
  LockEntry e(rank, local, type, (assert& MPI_MODE_NOCHECK) != 0);
  // Self locks and shared-memory windows protect direct loads and stores: take them now,
  // on the lock words (a target serves remote lockers on the same words, am_target.cc).
  if (!e.nocheck && local >= 0 && (rank == rank_ || flavor_ == Flavor::kShared)) {
    OSPREY_TRY(acquire_lock(local, type));
    e.held = true;
  }
  locks_.push_back(e);
  access_ = Access::kLock;
  return kOk;
}

Status Window::unlock(int rank) {
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  LockEntry* e = access_ == Access::kLock ? find_lock(rank) : nullptr;
  if (!e) return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_unlock without a matching MPI_Win_lock");
  TargetView t;
  OSPREY_TRY(target(rank, t));
  const Status s = t.path->unlock(*this, t, *e);
  *e = locks_.back();
  locks_.pop_back();
  if (locks_.empty()) access_ = Access::kNone;
  return s;
}

Status Window::lock_all(int assert) {
  if (assert & ~MPI_MODE_NOCHECK)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_lock_all");
  if (access_ == Access::kLock || access_ == Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_lock_all inside a lock epoch");
  OSPREY_TRY(leave_fence_for("osprey: MPI_Win_lock_all inside a fence or PSCW epoch"));
  lockall_nocheck_ = (assert& MPI_MODE_NOCHECK) != 0;
  lockall_held_.clear();
  const size_t words = static_cast<size_t>(ci_->node_size() + 63) / 64;
  lockall_bits_.reset(new std::atomic<uint64_t>[words]);
  for (size_t i = 0; i < words; ++i)
    lockall_bits_[i].store(0, std::memory_order_relaxed);
  access_ = Access::kLockAll;
  // Shared-memory windows: the user may load and store directly, so take every lock now (the
  // lock words, whatever path the data takes).
  if (!lockall_nocheck_ && flavor_ == Flavor::kShared) {
    for (int i = 0; i < ci_->node_size(); ++i) {
      TargetView t;
      OSPREY_TRY(target(ci_->comm_rank_of_local(i), t));
      OSPREY_TRY(lock_all_words(t));
    }
  }
  return kOk;
}

Status Window::take_lock_words(const TargetView& t, LockEntry& e) {
  std::unique_lock<std::mutex> g(acquire_mu_, std::defer_lock);
  if (threads_) g.lock();
  if (!e.held.load(std::memory_order_relaxed)) {
    OSPREY_TRY(acquire_lock(t.local, e.type));
    e.held.store(true, std::memory_order_release);
  }
  return kOk;
}

Status Window::lock_all_words(const TargetView& t) {
  std::atomic<uint64_t>& word = lockall_bits_[static_cast<size_t>(t.local) / 64];
  const uint64_t bit = uint64_t{1} << (t.local % 64);
  if (word.load(std::memory_order_acquire) & bit) return kOk;
  std::unique_lock<std::mutex> g(acquire_mu_, std::defer_lock);
  if (threads_) g.lock();
  if (word.load(std::memory_order_relaxed) & bit) return kOk;
  OSPREY_TRY(acquire_lock(t.local, MPI_LOCK_SHARED));
  lockall_held_.push_back(t.local);
  word.fetch_or(bit, std::memory_order_release);
  return kOk;
}

Status Window::unlock_all() {
  if (access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_unlock_all without MPI_Win_lock_all");
  const Status s = uses_am_ ? am_unlock_all() : kOk;
  cpu::mem_sync_beside_rmw();
  for (int local : lockall_held_)
    shm_lock::unlock_shared(view_.lock(static_cast<uint32_t>(local)));
  lockall_held_.clear();
  access_ = Access::kNone;
  return s;
}

Status Window::flush_general(int rank) {
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  if (access_ == Access::kLock ? !find_lock(rank) : access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: flush of a target outside a passive-target epoch");
  serve_requests();
  TargetView t;
  OSPREY_TRY(target(rank, t));
  return t.path->flush(*this, t, false);
}

Status Window::flush_all() {
  if (access_ != Access::kLock && access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_flush_all outside a passive-target epoch");
  cpu::mem_sync();
  serve_requests();
  return uses_am_ ? am_flush_all(false) : kOk;
}

Status Window::flush_local(int rank) {
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  if (access_ == Access::kLock ? !find_lock(rank) : access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: flush of a target outside a passive-target epoch");
  serve_requests();
  TargetView t;
  OSPREY_TRY(target(rank, t));
  return t.path->flush(*this, t, true);
}

Status Window::flush_local_all() {
  if (access_ != Access::kLock && access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_flush_local_all outside a passive-target epoch");
  serve_requests();
  return uses_am_ ? am_flush_all(true) : kOk;
}

Status Window::sync() {
  cpu::mem_sync();
  serve_requests();
  return kOk;
}

}  // namespace osprey::rma
