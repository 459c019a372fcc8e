// The passive-target lock of one rank, in its node segment: a phase-fair reader-writer lock
// (ticket based). Readers arriving while a writer holds or waits go right after that writer;
// a writer waits only for the readers that came before it. Neither a stream of shared lockers
// nor a stream of exclusive lockers can starve the other kind.
#pragma once

#include "progress/engine.h"
#include "transport/shm/window_segment.h"

namespace osprey::rma::shm_lock {

// Blocking forms run `idle` while they wait (see progress/engine.h).
void lock_shared(shm::LockWords& l, progress::Idle idle);
void unlock_shared(shm::LockWords& l);
void lock_exclusive(shm::LockWords& l, progress::Idle idle);
// Whether any process holds the lock or waits for it (a snapshot).
bool in_use(const shm::LockWords& l);
void unlock_exclusive(shm::LockWords& l);

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
