#include "rma/shm_lock.h"

#include "progress/backoff.h"

namespace osprey::rma::shm_lock {
namespace {

constexpr uint32_t kReaderInc = 0x100;  // reader counts live above the writer bits
constexpr uint32_t kWriterBits = 0x3;
constexpr uint32_t kPresent = 0x2;  // a writer holds or waits for the lock
constexpr uint32_t kPhase = 0x1;    // which writer (parity of its ticket)

template <class Done>
void spin_until(Done&& done) {
  if (done()) return;
  progress::Backoff b;
  while (!done()) {
    progress::poll();
    b.pause();
  }
}

}  // namespace

void lock_shared(shm::LockWords& l) {
  const uint32_t w = l.rin.fetch_add(kReaderInc, std::memory_order_acquire) & kWriterBits;
  if (w == 0) return;
  // Wait for the writer of this phase to leave (or the next writer's phase to begin).
  spin_until([&] { return (l.rin.load(std::memory_order_acquire) & kWriterBits) != w; });
}

void unlock_shared(shm::LockWords& l) { l.rout.fetch_add(kReaderInc, std::memory_order_release); }

void lock_exclusive(shm::LockWords& l) {
  const uint32_t ticket = l.win.fetch_add(1, std::memory_order_acquire);
  spin_until([&] { return l.wout.load(std::memory_order_acquire) == ticket; });
  const uint32_t readers =
      l.rin.fetch_add(kPresent | (ticket & kPhase), std::memory_order_acquire);
  spin_until([&] { return l.rout.load(std::memory_order_acquire) == readers; });
}

void unlock_exclusive(shm::LockWords& l) {
  l.rin.fetch_and(~kWriterBits, std::memory_order_release);
  // Only the holder writes wout, so the next writer's ticket can be served by a plain store.
  l.wout.store(l.wout.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace osprey::rma::shm_lock
