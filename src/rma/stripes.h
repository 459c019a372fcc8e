// The accumulate lock stripes of a window segment: elements that CPU atomics cannot update
// (private memory reached by cross-memory attach, unaligned or wide elements) are updated
// under the stripe their (node rank, address) hashes to. Several stripes are always taken in
// increasing order, so updates that cover many elements cannot deadlock.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/shm/window_segment.h"

namespace osprey::rma {

// A spin lock on a word in shared memory, for short critical sections whose holder never
// waits for anyone. Waiters do not run progress: it could execute a request that needs a lock
// this process holds.
// `order`: seq_cst where the holder then reads words that others write before they read this
// one (rma/acc_gate.h).
// The wait once the lock was found taken.
void spin_lock_contended(std::atomic<uint32_t>& w, std::memory_order order);
// Inline: every accumulate on more than one element takes one, nearly always free.
inline void spin_lock(std::atomic<uint32_t>& w,
                      std::memory_order order = std::memory_order_acquire) {
  if (w.exchange(1, order) != 0) spin_lock_contended(w, order);
}
inline void spin_unlock(std::atomic<uint32_t>& w) {
  w.store(0, std::memory_order_release);
}

// Holds a window rank's whole-operation accumulate lock (shm::AccLock) if `hold`.
class WholeOpGuard {
 public:
  WholeOpGuard(shm::AccLock& l, bool hold) : l_(hold ? &l : nullptr) {
    if (l_) spin_lock(l_->word);
  }
  ~WholeOpGuard() {
    if (l_) spin_unlock(l_->word);
  }
  WholeOpGuard(const WholeOpGuard&) = delete;
  WholeOpGuard& operator=(const WholeOpGuard&) = delete;

 private:
  shm::AccLock* l_;
};

class Stripes {
 public:
  Stripes() = default;
  explicit Stripes(const shm::SegmentView* v) : v_(v) {}

  // `key`: the element's address in its owner's address space, or its segment offset.
  std::size_t index(int local, uint64_t key) const;
  void lock(std::size_t i) const;
  void unlock(std::size_t i) const;
  // Adds to `set` the stripes of every element that starts in [lo, hi) of node rank `local`:
  // one look-up per 16-byte granule (the hash ignores the low bits), and every stripe once
  // the range has as many granules as there are stripes.
  void cover(int local, uint64_t lo, uint64_t hi, std::vector<std::size_t>& set) const;

  // Takes every stripe in `set` (sorted and deduplicated here) and releases them on
  // destruction.
  class Guard {
   public:
    Guard(const Stripes& s, std::vector<std::size_t>& set);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    const Stripes& s_;
    std::vector<std::size_t>& set_;
  };

 private:
  const shm::SegmentView* v_ = nullptr;
};

}  // namespace osprey::rma
