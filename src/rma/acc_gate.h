// How accumulates on many elements run at memory speed without breaking the atomicity of the
// single-element operations (see accumulate.cc's header). On segment memory those are CPU
// atomics; on a rank's private memory (create and dynamic windows, reached by cross-memory
// attach or applied by the owner for the message path) they hold the element's lock stripe,
// and the same gate spares a bulk operation the stripes of its whole region.
//
// Single-element operations (fetch_and_op, compare_and_swap, one-element accumulates) are one
// CPU atomic and take no lock. An operation on many elements could stay atomic against them
// only with one CPU atomic per element, 5 ns each here, 40x slower than a plain loop. Instead
// it takes the target rank's whole-operation lock and waits until no single-element operation
// is in flight at the rank; then it runs as a plain loop. A single-element operation first
// counts itself in its applier's in-flight counter for the rank, then reads the lock word:
// free, it runs lock-free; taken, it withdraws and runs under the lock instead. Each side
// writes its own word before it reads the other's (sequentially consistent), so at least one
// of them sees the other.
//
// The price for single-element operations is one more atomic, on a cache line that only the
// applier writes. Waiting for the in-flight counters reads one line per node rank, so on
// crowded nodes operations on a few elements keep one atomic per element (bulk_min_elements).
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/backoff.h"
#include "rma/stripes.h"
#include "transport/shm/window_segment.h"

namespace osprey::rma {

// From how many elements on a node of `node_ranks` an operation runs as a plain loop.
inline std::size_t bulk_min_elements(uint32_t node_ranks) {
  return node_ranks > 2 ? node_ranks : 2;
}

// Held around one single-element operation on the memory of node rank `target`, applied by
// node rank `applier` (this process); does nothing unless `active`.
class SingleOpGuard {
 public:
  SingleOpGuard(const shm::SegmentView& v, uint32_t applier, uint32_t target, bool active = true)
      : lock_(v.acc(target)),
        mine_(v.inflight(applier, target)),
        // Another thread of this process may apply to the same target meanwhile: user threads,
        // or the progress thread serving the message path.
        threads_(progress::concurrent_threads.load(std::memory_order_relaxed)) {
    if (!active) {
      idle_ = true;
      return;
    }
    if (threads_)
      mine_.fetch_add(1, std::memory_order_seq_cst);
    else
      mine_.store(1, std::memory_order_seq_cst);
    if (lock_.word.load(std::memory_order_seq_cst) == 0) return;
    release_count();
    locked_ = true;
    spin_lock(lock_.word);
  }
  ~SingleOpGuard() {
    if (idle_) return;
    if (locked_)
      spin_unlock(lock_.word);
    else
      release_count();
  }
  SingleOpGuard(const SingleOpGuard&) = delete;
  SingleOpGuard& operator=(const SingleOpGuard&) = delete;

 private:
  void release_count() {
    if (threads_)
      mine_.fetch_sub(1, std::memory_order_release);
    else
      mine_.store(0, std::memory_order_release);
  }
  shm::AccLock& lock_;
  std::atomic<uint32_t>& mine_;
  bool threads_;
  bool locked_ = false;
  bool idle_ = false;
};

// Held around a plain-loop update of node rank `target`'s memory: no other
// accumulate-style operation touches the rank's memory meanwhile.
class BulkOpGuard {
 public:
  BulkOpGuard(const shm::SegmentView& v, uint32_t target) : lock_(v.acc(target)) {
    spin_lock(lock_.word, std::memory_order_seq_cst);
    // In flight means between two instructions of a running operation: the wait is short, and
    // it runs no progress (the operations waited for never wait for this process).
    // The Backoff only when there is something to wait for: building one costs two calls, and
    // this runs for every accumulate on more than one element.
    for (uint32_t a = 0; a < v.layout().nranks; ++a) {
      std::atomic<uint32_t>& n = v.inflight(a, target);
      if (n.load(std::memory_order_seq_cst) == 0) continue;
      progress::Backoff b;
      while (n.load(std::memory_order_seq_cst) != 0)
        b.pause();
    }
  }
  ~BulkOpGuard() { spin_unlock(lock_.word); }
  BulkOpGuard(const BulkOpGuard&) = delete;
  BulkOpGuard& operator=(const BulkOpGuard&) = delete;

 private:
  shm::AccLock& lock_;
};

}  // namespace osprey::rma
