// Passive-target epochs of one window: MPI_Win_lock/unlock, lock_all/unlock_all and flushes.
// A lock entry is the per-target lock state of the MPICH "New RMA Design": LOCK_CALLED (recorded,
// not held) until the first operation takes the lock (LOCK_GRANTED), so a lock/unlock pair without
// operations costs nothing. Node-local targets' lock words are taken here for the node paths; the
// message path asks for locks with its requests (am_origin.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "util/status.h"

namespace osprey::rma {

class Window;
struct TargetView;

// One MPI_Win_lock epoch of this process (usually one target).
struct LockEntry {
  int rank;
  int local;
  int type;                // MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED
  bool nocheck;            // MPI_MODE_NOCHECK: no lock is taken at all
  bool am_sent = false;    // message path: the lock request went out with an operation
  std::atomic<bool> held;  // lock words taken (LOCK_GRANTED); false: LOCK_CALLED, lazily
  LockEntry(int r, int l, int t, bool n) : rank(r), local(l), type(t), nocheck(n), held(false) {}
  LockEntry(const LockEntry& o)
      : rank(o.rank),
        local(o.local),
        type(o.type),
        nocheck(o.nocheck),
        am_sent(o.am_sent),
        held(o.held.load()) {}
  LockEntry& operator=(const LockEntry& o) {
    rank = o.rank, local = o.local, type = o.type, nocheck = o.nocheck, am_sent = o.am_sent;
    held.store(o.held.load());
    return *this;
  }
};

class PassiveEpochs {
 public:
  explicit PassiveEpochs(Window& w) : w_(w) {}

  Status lock(int type, int rank, int assert);
  Status unlock(int rank);
  Status lock_all(int assert);
  Status unlock_all();
  Status flush(int rank, bool local_only);
  Status flush_all(bool local_only);

  LockEntry* find(int rank) {
    for (LockEntry& e : locks_)
      if (e.rank == rank) return &e;
    return nullptr;
  }
  const std::vector<LockEntry>& locks() const { return locks_; }
  bool lockall_nocheck() const { return lockall_nocheck_; }
  // Whether lock_all already took node-local rank `local`'s shared lock.
  bool lockall_holds(int local) const {
    return lockall_bits_[static_cast<std::size_t>(local) / 64].load(std::memory_order_acquire) &
           (uint64_t{1} << (local % 64));
  }

  // The lock words of node-local ranks, for the node paths.
  Status acquire_words(int local, int type);
  Status take_words(const TargetView& t, LockEntry& e);  // lazily, for an operation
  void release_words(const LockEntry& e);
  Status lock_all_words(const TargetView& t);  // lock_all's lazy shared lock

 private:
  Window& w_;
  std::vector<LockEntry> locks_;
  bool lockall_nocheck_ = false;
  std::vector<int> lockall_held_;  // node-local ranks whose shared lock lock_all took
  std::unique_ptr<std::atomic<uint64_t>[]> lockall_bits_;  // membership of lockall_held_
  // Lazy lock acquisition may race between threads issuing operations (MPI_THREAD_MULTIPLE).
  std::mutex acquire_mu_;
};

}  // namespace osprey::rma
