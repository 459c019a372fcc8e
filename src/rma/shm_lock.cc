#include "rma/shm_lock.h"

#include <mpi.h>

#include "progress/backoff.h"

namespace osprey::rma::shm_lock {
namespace {

constexpr uint32_t kReaderInc = 0x100;  // reader counts live above the writer bits
constexpr uint32_t kWriterBits = 0x3;
constexpr uint32_t kPresent = 0x2;  // a writer holds or waits for the lock
constexpr uint32_t kPhase = 0x1;    // which writer (parity of its ticket)

uint32_t lo(uint64_t a) {
  return static_cast<uint32_t>(a);
}
uint32_t hi(uint64_t a) {
  return static_cast<uint32_t>(a >> 32);
}
uint64_t to_hi(uint32_t v) {
  return uint64_t{v} << 32;
}

// A writer's ticket: the low half counts up, wrapping without a carry into the readers' half.
uint32_t take_ticket(shm::LockWords& l) {
  uint64_t a = l.arrivals.load(std::memory_order_relaxed);
  while (!l.arrivals.compare_exchange_weak(a, (a & ~uint64_t{0xffffffff}) | (lo(a) + 1u),
                                           std::memory_order_acquire, std::memory_order_relaxed)) {
  }
  return lo(a);
}

// The writer with `ticket`, now served, bars readers that come after it; returns the reader
// arrivals before it (no writer bits: the last writer cleared them before serving this one).
uint32_t announce_writer(shm::LockWords& l, uint32_t ticket) {
  return hi(l.arrivals.fetch_add(to_hi(kPresent | (ticket & kPhase)), std::memory_order_acquire));
}

// A lock nobody holds or waits for is taken exclusively in one step: the next ticket, already
// served, and the writer bits, with every reader that arrived gone. wout and rout cannot move
// between the check and the swap: wout only moves when the holder of the last ticket leaves, and
// rout not past the arrivals the swap finds unchanged.
bool try_free(shm::LockWords& l) {
  uint64_t a = l.arrivals.load(std::memory_order_relaxed);
  const uint32_t t = lo(a), r = hi(a);
  if ((r & kWriterBits) || l.wout.load(std::memory_order_acquire) != t ||
      l.rout.load(std::memory_order_acquire) != r)
    return false;
  const uint64_t held = to_hi(r | kPresent | (t & kPhase)) | (t + 1u);
  return l.arrivals.compare_exchange_strong(a, held, std::memory_order_acquire,
                                            std::memory_order_relaxed);
}

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
  const uint32_t w =
      hi(l.arrivals.fetch_add(to_hi(kReaderInc), std::memory_order_acquire)) & kWriterBits;
  if (w == 0) return;
  // Wait for the writer of this phase to leave (or the next writer's phase to begin).
  spin_until(
      l, [&] { return (l.rin() & kWriterBits) != w; }, idle);
}

void unlock_shared(shm::LockWords& l) {
  l.rout.fetch_add(kReaderInc, std::memory_order_release);
  progress::notify_after_rmw(l.bell);
}

void lock_exclusive(shm::LockWords& l, progress::Idle idle) {
  if (try_free(l)) return;
  const uint32_t ticket = take_ticket(l);
  spin_until(
      l, [&] { return l.wout.load(std::memory_order_acquire) == ticket; }, idle);
  const uint32_t readers = announce_writer(l, ticket);
  spin_until(
      l, [&] { return l.rout.load(std::memory_order_acquire) == readers; }, idle);
}

bool in_use(const shm::LockWords& l) {
  const uint64_t a = l.arrivals.load(std::memory_order_acquire);
  return lo(a) != l.wout.load(std::memory_order_acquire) ||
         (hi(a) & ~kWriterBits) != l.rout.load(std::memory_order_acquire);
}

void unlock_exclusive(shm::LockWords& l) {
  l.arrivals.fetch_and(~to_hi(kWriterBits), std::memory_order_release);
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
          a.snapshot =
              hi(l.arrivals.fetch_add(to_hi(kReaderInc), std::memory_order_acquire)) & kWriterBits;
          a.stage = a.snapshot ? S::kReaderWait : S::kHeld;
        } else {
          if (try_free(l)) {
            a.stage = S::kHeld;
            continue;
          }
          a.ticket = take_ticket(l);
          a.stage = S::kWriterTicket;
        }
        continue;
      case S::kReaderWait:
        if ((l.rin() & kWriterBits) == a.snapshot) return false;
        a.stage = S::kHeld;
        continue;
      case S::kWriterTicket:
        if (l.wout.load(std::memory_order_acquire) != a.ticket) return false;
        a.snapshot = announce_writer(l, a.ticket);
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
