#include "rma/shm_lock.h"

#include <mpi.h>

#include "progress/backoff.h"

namespace osprey::rma::shm_lock {
using namespace detail;

namespace {

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

namespace detail {

void lock_shared_wait(shm::LockWords& l, uint32_t writer, progress::Idle idle) {
  // Wait for the writer of this phase to leave (or the next writer's phase to begin).
  spin_until(
      l, [&] { return (l.rin() & kWriterBits) != writer; }, idle);
}

void lock_exclusive_wait(shm::LockWords& l, progress::Idle idle) {
  const uint32_t ticket = take_ticket(l);
  spin_until(
      l, [&] { return l.wout.load(std::memory_order_acquire) == ticket; }, idle);
  const uint32_t readers = announce_writer(l, ticket);
  spin_until(
      l, [&] { return l.rout.load(std::memory_order_acquire) == readers; }, idle);
}

}  // namespace detail

bool in_use(const shm::LockWords& l) {
  const uint64_t a = l.arrivals.load(std::memory_order_acquire);
  return lo(a) != l.wout.load(std::memory_order_acquire) ||
         (hi(a) & ~kWriterBits) != l.rout.load(std::memory_order_acquire);
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
