// Small puts and gets toward node peers reached by cross-memory attach wait here, per target,
// until the synchronization that completes them (or an operation that must come after them)
// issues them together: one process_vm_writev/readv per run of operations in one direction,
// adjacent target ranges merged. A system call costs far more than the bytes of a small
// operation (here ~0.4 us, plus ~0.1 us per range), so sixty-four 8-byte puts to neighbouring
// addresses become one call with one range.
//
// A put's data is copied into the target's staging buffer when the call is made, so the origin
// buffer may be reused at once, as MPI allows; a get reads into the user's buffer when issued.
// Operations toward one target are issued in the order they were made.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "progress/engine.h"
#include "util/status.h"

namespace osprey::rma {

class ServedOps;

class CmaQueues {
 public:
  // One queue per node-local rank; `limit`: largest operation queued, in bytes (0: none).
  void init(int node_size, std::size_t limit);

  // Whether a put of `n` bytes waits here (else the caller issues it at once, after draining
  // the target's queue): its data is copied at the call, so only small ones are.
  bool takes_put(std::size_t n) const { return n <= limit_; }
  // Whether a get waits here: any size unless queueing is off. A get reads into the user's
  // buffer when issued, so it costs no copy, and gets that fill neighbouring buffers from
  // neighbouring target ranges merge into one range: a window of 64 gets of 16 KiB is one
  // 1 MiB call, not 64 calls (on a 2-core Xeon, 19-23 GB/s against 9-15 in cache).
  bool takes_get() const { return limit_ > 0; }

  // Queues `n` bytes to `remote` in process `pid` (node-local rank `local`); issues what is
  // queued first if the target's queue is full, and reports that call's error.
  Status put(int local, pid_t pid, uint64_t remote, const void* src, std::size_t n);
  Status get(int local, pid_t pid, uint64_t remote, void* dst, std::size_t n);

  // Issues what is queued toward node-local rank `local` (every rank): the operations are
  // complete at the target when this returns. The queue is empty afterwards even on error.
  // With `served`, a queue of one small operation is first offered to the target to apply
  // (served_ops.h), which costs no system call if it does.
  Status drain(int local, ServedOps* served = nullptr);
  // Whether anything may wait toward node-local rank `local` (drain would issue something).
  bool waiting(int local) const {
    return q_ && q_[static_cast<std::size_t>(local)].pending.load(std::memory_order_acquire);
  }
  // Every queue; nothing to do (one load) in a window that never queued an operation, such as
  // one whose node targets all take loads and stores.
  Status drain_all();

 private:
  struct Entry {
    uint64_t remote;
    uintptr_t local;  // a put's offset in the staging buffer, or a get's destination address
    std::size_t len;
    bool write;
  };
  struct Queue {
    progress::EngineMutex mu;          // free without concurrent threads
    std::atomic<bool> pending{false};  // read without mu to skip empty queues
    pid_t pid = 0;
    std::vector<Entry> ents;
    std::unique_ptr<char[]> stage;  // allocated at the first put
    std::size_t staged = 0;
    std::vector<iovec> liov, riov;  // kept to avoid an allocation per issue
  };
  Status issue(Queue& q);  // with q.mu held
  // Whether the target at `local` took q's one small operation (its outcome in *answer).
  bool served_alone(Queue& q, int local, ServedOps& served, Status* answer);

  void note_used() {
    if (!used_.load(std::memory_order_relaxed)) used_.store(true, std::memory_order_release);
  }

  std::unique_ptr<Queue[]> q_;
  std::atomic<bool> used_{false};  // some operation was queued once
  std::size_t n_ = 0;
  std::size_t limit_ = 0;
};

}  // namespace osprey::rma
