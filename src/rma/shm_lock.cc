#include "rma/shm_lock.h"

#include <mpi.h>

#include "progress/backoff.h"

namespace osprey::rma::shm_lock {
namespace {

constexpr uint32_t kReaderInc = 0x100;  // reader counts live above the writer bits
constexpr uint32_t kWriterBits = 0x3;
constexpr uint32_t kPresent = 0x2;  // a writer holds or waits for the lock
constexpr uint32_t kPhase = 0x1;    // which writer (parity of its ticket)

// Every release rings the lock's doorbell, so a waiter of an oversubscribed node sleeps until
// the lock moves.
template <class Done>
void spin_until(shm::LockWords& l, Done&& done, progress::Idle idle) {
  if (done()) return;
  progress::Backoff b;
  while (!done()) {
    if (idle && idle()) {
      b.reset();
      continue;
    }
    b.pause_on(l.bell, done);
  }
}

}  // namespace

void lock_shared(shm::LockWords& l, progress::Idle idle) {
  const uint32_t w = l.rin.fetch_add(kReaderInc, std::memory_order_acquire) & kWriterBits;
  if (w == 0) return;
  // Wait for the writer of this phase to leave (or the next writer's phase to begin).
  spin_until(
      l, [&] { return (l.rin.load(std::memory_order_acquire) & kWriterBits) != w; }, idle);
}

void unlock_shared(shm::LockWords& l) {
  l.rout.fetch_add(kReaderInc, std::memory_order_release);
  progress::notify_after_rmw(l.bell);
}

void lock_exclusive(shm::LockWords& l, progress::Idle idle) {
  const uint32_t ticket = l.win.fetch_add(1, std::memory_order_acquire);
  spin_until(
      l, [&] { return l.wout.load(std::memory_order_acquire) == ticket; }, idle);
  const uint32_t readers = l.rin.fetch_add(kPresent | (ticket & kPhase), std::memory_order_acquire);
  spin_until(
      l, [&] { return l.rout.load(std::memory_order_acquire) == readers; }, idle);
}

bool in_use(const shm::LockWords& l) {
  const uint32_t readers_in = l.rin.load(std::memory_order_acquire) & ~kWriterBits;
  return l.win.load(std::memory_order_acquire) != l.wout.load(std::memory_order_acquire) ||
         readers_in != l.rout.load(std::memory_order_acquire);
}

void unlock_exclusive(shm::LockWords& l) {
  l.rin.fetch_and(~kWriterBits, std::memory_order_release);
  // Only the holder writes wout, so the next writer's ticket can be served by a plain store.
  l.wout.store(l.wout.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  progress::notify(l.bell);
}

bool advance(AsyncLock& a, shm::LockWords& l) {
  using S = AsyncLock::Stage;
  for (;;) {
    switch (a.stage) {
      case S::kIdle:
        if (a.type == MPI_LOCK_SHARED) {
          a.snapshot = l.rin.fetch_add(kReaderInc, std::memory_order_acquire) & kWriterBits;
          a.stage = a.snapshot ? S::kReaderWait : S::kHeld;
        } else {
          a.ticket = l.win.fetch_add(1, std::memory_order_acquire);
          a.stage = S::kWriterTicket;
        }
        continue;
      case S::kReaderWait:
        if ((l.rin.load(std::memory_order_acquire) & kWriterBits) == a.snapshot) return false;
        a.stage = S::kHeld;
        continue;
      case S::kWriterTicket:
        if (l.wout.load(std::memory_order_acquire) != a.ticket) return false;
        a.snapshot = l.rin.fetch_add(kPresent | (a.ticket & kPhase), std::memory_order_acquire);
        a.stage = S::kWriterReaders;
        continue;
      case S::kWriterReaders:
        if (l.rout.load(std::memory_order_acquire) != a.snapshot) return false;
        a.stage = S::kHeld;
        continue;
      case S::kHeld:
        return true;
    }
  }
}

void release(AsyncLock& a, shm::LockWords& l) {
  if (a.stage != AsyncLock::Stage::kHeld) return;
  if (a.type == MPI_LOCK_SHARED)
    unlock_shared(l);
  else
    unlock_exclusive(l);
  a.stage = AsyncLock::Stage::kIdle;
}

}  // namespace osprey::rma::shm_lock
