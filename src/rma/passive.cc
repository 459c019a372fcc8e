#include "rma/passive.h"

#include "progress/backoff.h"
#include "rma/paths.h"
#include "rma/shm_lock.h"
#include "rma/window.h"
#include "util/cpu.h"

namespace osprey::rma {

Status PassiveEpochs::acquire_words(int local, int type) {
  shm::LockWords& l = w_.view_.lock(static_cast<uint32_t>(local));
  if (type == MPI_LOCK_EXCLUSIVE)
    shm_lock::lock_exclusive(l, progress::poll);
  else
    shm_lock::lock_shared(l, progress::poll);
  cpu::mem_sync_beside_rmw();  // later accesses happen after the grant
  return kOk;
}

void PassiveEpochs::release_words(const LockEntry& e) {
  if (!e.held || e.nocheck) return;
  cpu::mem_sync_beside_rmw();  // everything done in the epoch is visible before the release
  shm::LockWords& l = w_.view_.lock(static_cast<uint32_t>(e.local));
  if (e.type == MPI_LOCK_EXCLUSIVE)
    shm_lock::unlock_exclusive(l);
  else
    shm_lock::unlock_shared(l);
}

inline std::unique_lock<std::mutex> PassiveEpochs::epochs_lock() {
  // Only threads of one process can race here: a process that is not MPI_THREAD_MULTIPLE
  // does not pay for the lock (a lock/unlock pair is a few tens of nanoseconds).
  std::unique_lock<std::mutex> g(mu_, std::defer_lock);
  if (w_.threads_) g.lock();
  return g;
}

Status PassiveEpochs::lock(int type, int rank, int assert) {
  if (type != MPI_LOCK_EXCLUSIVE && type != MPI_LOCK_SHARED)
    return Err(MPI_ERR_LOCKTYPE, "osprey: lock type must be MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED");
  if (assert & ~MPI_MODE_NOCHECK)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_lock");
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= w_.nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  const int local = w_.ci_->local_index(rank);
  LockEntry* e;
  {
    std::unique_lock<std::mutex> g = epochs_lock();
    const Access now = w_.access_.load(std::memory_order_relaxed);
    if (now == Access::kLockAll)
      return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_lock inside a lock_all epoch");
    if (now == Access::kLock) {
      if (find(rank))
        return Err(MPI_ERR_RMA_SYNC, "osprey: this target is already locked by this process");
    } else if (now != Access::kNone) {
      OSPREY_TRY(w_.leave_fence_for("osprey: MPI_Win_lock inside a fence or PSCW epoch"));
    }
    if (!open_.load(std::memory_order_relaxed)) {
      entries_.resize(static_cast<size_t>(w_.nranks_));
      open_storage_.reset(new std::atomic<LockEntry*>[static_cast<size_t>(w_.nranks_)]);
      for (int r = 0; r < w_.nranks_; ++r)
        open_storage_[static_cast<size_t>(r)].store(nullptr, std::memory_order_relaxed);
      open_.store(open_storage_.get(), std::memory_order_release);
    }
    std::unique_ptr<LockEntry>& slot = entries_[static_cast<size_t>(rank)];
    if (!slot) slot = std::make_unique<LockEntry>();
    e = slot.get();
    open_entry(e, type, rank, local, assert);
  }
  // Self locks and shared-memory windows protect direct loads and stores: take them now,
  // on the lock words (a target serves remote lockers on the same words, am_target.cc).
  if (!e->nocheck && local >= 0 && (rank == w_.rank_ || w_.flavor_ == Flavor::kShared)) {
    OSPREY_TRY(acquire_words(local, type));
    e->held.store(true, std::memory_order_release);
  }
  return kOk;
}

Status PassiveEpochs::unlock(int rank) {
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= w_.nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  LockEntry* e;
  {
    std::unique_lock<std::mutex> g = epochs_lock();
    e = w_.access_.load(std::memory_order_relaxed) == Access::kLock ? find(rank) : nullptr;
    if (!e || e->closing)
      return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_unlock without a matching MPI_Win_lock");
    e->closing = true;
  }
  Status s;
  if (w_.direct_local(e->local)) {
    NodePath::unlock_words(w_, *e);  // the direct path's unlock, without a target view
  } else {
    TargetView t;
    s = w_.target(rank, t);
    if (s.ok()) s = t.path->unlock(w_, t, *e);
  }
  std::unique_lock<std::mutex> g = epochs_lock();
  close_entry(rank);
  return s;
}

Status PassiveEpochs::lock_all(int assert) {
  if (assert & ~MPI_MODE_NOCHECK)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_lock_all");
  if (w_.access_ == Access::kLock || w_.access_ == Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_lock_all inside a lock epoch");
  OSPREY_TRY(w_.leave_fence_for("osprey: MPI_Win_lock_all inside a fence or PSCW epoch"));
  lockall_nocheck_ = (assert& MPI_MODE_NOCHECK) != 0;
  lockall_held_.clear();
  const size_t words = static_cast<size_t>(w_.ci_->node_size() + 63) / 64;
  if (!lockall_bits_) {  // once per window: lock_all/unlock_all loops are a latency benchmark
    lockall_bits_.reset(new std::atomic<uint64_t>[words]);
    lockall_claims_.reset(new std::atomic<uint64_t>[words]);
  }
  for (size_t i = 0; i < words; ++i) {
    lockall_bits_[i].store(0, std::memory_order_relaxed);
    lockall_claims_[i].store(0, std::memory_order_relaxed);
  }
  w_.access_.store(Access::kLockAll, std::memory_order_release);
  // Shared-memory windows: the user may load and store directly, so take every lock now (the
  // lock words, whatever path the data takes).
  if (!lockall_nocheck_ && w_.flavor_ == Flavor::kShared) {
    for (int i = 0; i < w_.ci_->node_size(); ++i) {
      TargetView t;
      OSPREY_TRY(w_.target(w_.ci_->comm_rank_of_local(i), t));
      OSPREY_TRY(lock_all_words(t.local));
    }
  }
  return kOk;
}

Status PassiveEpochs::take_words(const TargetView& t, LockEntry& e) {
  if (e.held.load(std::memory_order_acquire)) return kOk;
  bool expect = false;
  if (!e.claimed.compare_exchange_strong(expect, true, std::memory_order_acq_rel)) {
    progress::wait_until([&] { return e.held.load(std::memory_order_acquire); });
    return kOk;
  }
  OSPREY_TRY(acquire_words(t.local, e.type));
  e.held.store(true, std::memory_order_release);
  return kOk;
}

Status PassiveEpochs::lock_all_words(int local) {
  const size_t i = static_cast<size_t>(local) / 64;
  const uint64_t bit = uint64_t{1} << (local % 64);
  std::atomic<uint64_t>& held = lockall_bits_[i];
  if (held.load(std::memory_order_acquire) & bit) return kOk;
  // One thread: the claim and the publication need no atomic steps (two of the five a
  // lock_all epoch with one operation takes).
  const bool threads = w_.threads_;
  if (threads && (lockall_claims_[i].fetch_or(bit, std::memory_order_acq_rel) & bit)) {
    progress::wait_until([&] { return (held.load(std::memory_order_acquire) & bit) != 0; });
    return kOk;
  }
  OSPREY_TRY(acquire_words(local, MPI_LOCK_SHARED));
  {
    std::unique_lock<std::mutex> g(acquire_mu_, std::defer_lock);
    if (threads) g.lock();
    lockall_held_.push_back(local);
  }
  if (threads)
    held.fetch_or(bit, std::memory_order_release);
  else
    held.store(held.load(std::memory_order_relaxed) | bit, std::memory_order_relaxed);
  return kOk;
}

bool Window::fast_lock_all(int local) {
  return passive_.lock_all_words(local).ok();
}

Status PassiveEpochs::unlock_all() {
  if (w_.access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_unlock_all without MPI_Win_lock_all");
  Status s = w_.cma_queue_.drain_all();
  const Status am = w_.uses_am_ ? w_.am_unlock_all() : kOk;
  if (s.ok()) s = am;
  cpu::mem_sync_beside_rmw();
  for (int local : lockall_held_)
    shm_lock::unlock_shared(w_.view_.lock(static_cast<uint32_t>(local)));
  lockall_held_.clear();
  w_.access_.store(Access::kNone, std::memory_order_release);
  w_.serve_requests();  // as NodePath::unlock does
  return s;
}

Status PassiveEpochs::flush(int rank, bool local_only) {
  if (rank == MPI_PROC_NULL) return kOk;
  if (rank < 0 || rank >= w_.nranks_)
    return Err(MPI_ERR_RANK, "osprey: target rank is outside the window's group");
  if (w_.access_ == Access::kLock ? !find(rank) : w_.access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, "osprey: flush of a target outside a passive-target epoch");
  TargetView t;
  w_.path_view(rank, t);  // the whole view cost an empty flush a sixth of its time
  // The message path serves requests in its own wait (or, with nothing to wait for, once).
  if (!t.path->messages()) w_.serve_requests();
  return t.path->flush(w_, t, local_only);
}

Status PassiveEpochs::flush_all(bool local_only) {
  if (w_.access_ != Access::kLock && w_.access_ != Access::kLockAll)
    return Err(MPI_ERR_RMA_SYNC, local_only
                                     ? "osprey: MPI_Win_flush_local_all outside a passive epoch"
                                     : "osprey: MPI_Win_flush_all outside a passive-target epoch");
  const Status queued = w_.cma_queue_.drain_all();
  cpu::mem_sync();  // node-local operations completed when issued; make them visible
  w_.serve_requests();
  const Status am = w_.uses_am_ ? w_.am_flush_all(local_only) : kOk;
  return queued.ok() ? am : queued;
}

}  // namespace osprey::rma
