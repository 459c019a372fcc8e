// The passive-target lock of one rank, in its node segment: a phase-fair reader-writer lock
// (ticket based). Readers arriving while a writer holds or waits go right after that writer;
// a writer waits only for the readers that came before it. Neither a stream of shared lockers
// nor a stream of exclusive lockers can starve the other kind.
#pragma once

#include "transport/shm/window_segment.h"

namespace osprey::rma::shm_lock {

void lock_shared(shm::LockWords& l);
void unlock_shared(shm::LockWords& l);
void lock_exclusive(shm::LockWords& l);
void unlock_exclusive(shm::LockWords& l);

}  // namespace osprey::rma::shm_lock
