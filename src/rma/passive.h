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

// One MPI_Win_lock epoch of this process (usually one target). An entry lives as long as its
// window and is reused by the next lock of its rank, so a thread that read a stale pointer
// (erroneous use: an operation racing its target's unlock) still reads valid memory.
struct LockEntry {
  int rank = -1;
  int local = -1;
  int type = 0;                      // MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED
  bool nocheck = false;              // MPI_MODE_NOCHECK: no lock is taken at all
  bool am_sent = false;              // message path: the lock request went out with an operation
  bool closing = false;              // an unlock is under way (guarded by PassiveEpochs::mu_)
  std::atomic<bool> held{false};     // lock words taken (LOCK_GRANTED); false: LOCK_CALLED, lazily
  std::atomic<bool> claimed{false};  // a thread of this process is taking the words
};

class PassiveEpochs {
 public:
  explicit PassiveEpochs(Window& w) : w_(w) {}

  Status lock(int type, int rank, int assert);
  Status unlock(int rank);
  // lock and unlock's commonest case (window_fast.h), one thread in MPI: a lock of a target
  // locked before whose words are taken lazily (not this rank, not a shared-memory window), an
  // unlock of a target reached directly. False: the general form decides.
  inline bool lock_direct(int type, int rank, int assert);
  inline bool unlock_direct(int rank);
  Status lock_all(int assert);
  Status unlock_all();
  Status flush(int rank, bool local_only);
  Status flush_all(bool local_only);

  // The open lock epoch at `rank`, or null. Lock-free: operations of other threads read it
  // while lock/unlock of other targets change the set.
  LockEntry* find(int rank) const {
    std::atomic<LockEntry*>* open = open_.load(std::memory_order_acquire);
    return open ? open[rank].load(std::memory_order_acquire) : nullptr;
  }
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
  Status lock_all_words(int local);  // lock_all's lazy shared lock on node-local rank `local`

 private:
  std::unique_lock<std::mutex> epochs_lock();  // mu_, held only under MPI_THREAD_MULTIPLE
  // Opens e's epoch (its fields, the open table, the window's access state) and closes it;
  // under mu_.
  inline void open_entry(LockEntry* e, int type, int rank, int local, int assert);
  inline void close_entry(int rank);

  Window& w_;
  // Threads may open and close lock epochs on different targets at once (MPI_THREAD_MULTIPLE):
  // mu_ orders those changes and the window's access state between kNone and kLock; it is never
  // held across a wait.
  std::mutex mu_;
  std::vector<std::unique_ptr<LockEntry>> entries_;  // by rank, created at a rank's first lock
  std::unique_ptr<std::atomic<LockEntry*>[]> open_storage_;
  std::atomic<std::atomic<LockEntry*>*> open_{nullptr};  // by rank: the open epoch or null
  int open_count_ = 0;                                   // guarded by mu_
  bool lockall_nocheck_ = false;
  std::vector<int> lockall_held_;  // node-local ranks whose shared lock lock_all took
  std::unique_ptr<std::atomic<uint64_t>[]> lockall_bits_;    // membership of lockall_held_
  std::unique_ptr<std::atomic<uint64_t>[]> lockall_claims_;  // a thread is taking that lock
  // Lazy lock acquisition may race between threads issuing operations (MPI_THREAD_MULTIPLE):
  // the first thread claims a target's lock and takes it, the others wait until it is held, and
  // no mutex is held while a lock word is awaited. acquire_mu_ guards lockall_held_ only.
  std::mutex acquire_mu_;
};

}  // namespace osprey::rma
