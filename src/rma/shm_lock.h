// The passive-target lock of one rank, in its node segment: a phase-fair reader-writer lock
// (ticket based). Readers arriving while a writer holds or waits go right after that writer;
// a writer waits only for the readers that came before it. Neither a stream of shared lockers
// nor a stream of exclusive lockers can starve the other kind.
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/doorbell.h"
#include "progress/engine.h"
#include "transport/shm/window_segment.h"

namespace osprey::rma::shm_lock {

namespace detail {

constexpr uint32_t kReaderInc = 0x100;  // reader counts live above the writer bits
constexpr uint32_t kWriterBits = 0x3;
constexpr uint32_t kPresent = 0x2;  // a writer holds or waits for the lock
constexpr uint32_t kPhase = 0x1;    // which writer (parity of its ticket)

inline uint32_t lo(uint64_t a) {
  return static_cast<uint32_t>(a);
}
inline uint32_t hi(uint64_t a) {
  return static_cast<uint32_t>(a >> 32);
}
inline uint64_t to_hi(uint32_t v) {
  return uint64_t{v} << 32;
}

// A lock nobody holds or waits for is taken exclusively in one step: the next ticket, already
// served, and the writer bits, with every reader that arrived gone. wout and rout cannot move
// between the check and the swap: wout only moves when the holder of the last ticket leaves, and
// rout not past the arrivals the swap finds unchanged.
inline bool try_free(shm::LockWords& l) {
  uint64_t a = l.arrivals.load(std::memory_order_relaxed);
  const uint32_t t = lo(a), r = hi(a);
  if ((r & kWriterBits) || l.wout.load(std::memory_order_acquire) != t ||
      l.rout.load(std::memory_order_acquire) != r)
    return false;
  const uint64_t held = to_hi(r | kPresent | (t & kPhase)) | (t + 1u);
  return l.arrivals.compare_exchange_strong(a, held, std::memory_order_acquire,
                                            std::memory_order_relaxed);
}

// The waits of a lock that is not free (out of line).
void lock_exclusive_wait(shm::LockWords& l, progress::Idle idle);
void lock_shared_wait(shm::LockWords& l, uint32_t writer, progress::Idle idle);

}  // namespace detail

// Blocking forms run `idle` while they wait (see progress/engine.h). The steps of an
// uncontended lock are inline (as calls they were a tenth of a lock + get + unlock).
inline void lock_shared(shm::LockWords& l, progress::Idle idle) {
  using namespace detail;
  const uint32_t w =
      hi(l.arrivals.fetch_add(to_hi(kReaderInc), std::memory_order_acquire)) & kWriterBits;
  if (w != 0) [[unlikely]]
    lock_shared_wait(l, w, idle);
}
inline void unlock_shared(shm::LockWords& l) {
  l.rout.fetch_add(detail::kReaderInc, std::memory_order_release);
  progress::notify_after_rmw(l.bell);
}
inline void lock_exclusive(shm::LockWords& l, progress::Idle idle) {
  if (!detail::try_free(l)) [[unlikely]]
    detail::lock_exclusive_wait(l, idle);
}
// Whether any process holds the lock or waits for it (a snapshot).
bool in_use(const shm::LockWords& l);
inline void unlock_exclusive(shm::LockWords& l) {
  l.arrivals.fetch_and(~detail::to_hi(detail::kWriterBits), std::memory_order_release);
  // Only the holder writes wout, so the next writer's ticket can be served by a plain store.
  l.wout.store(l.wout.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  progress::notify(l.bell);
}

// The same lock taken step by step without blocking: a target takes its own lock for a remote
// origin from its progress engine. advance() returns true once the lock is held.
struct AsyncLock {
  enum class Stage : uint8_t { kIdle, kReaderWait, kWriterTicket, kWriterReaders, kHeld };
  Stage stage = Stage::kIdle;
  int type = 0;  // MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
  uint32_t ticket = 0, snapshot = 0;
};
bool advance(AsyncLock& a, shm::LockWords& l);
void release(AsyncLock& a, shm::LockWords& l);

}  // namespace osprey::rma::shm_lock
