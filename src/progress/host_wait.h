// Waits for host MPI requests, running `idle` (progress::poll at a safe point, so that a process
// blocked in an osprey call still serves the messages other processes send it) between tests.
#pragma once

#include <mpi.h>

#include "progress/engine.h"

namespace osprey::progress {

// Whether a waited request may be tested in one host call with the message endpoint's request
// slot (progress/slot_rider.h): only where its errors reach the same handler that way
// (mpi/blocking_wait.h).
enum class Ride { kAlone, kWithSlot };

// Both return the host's return code of the test that completed (or failed). `tested`: the
// caller's own test just found *req incomplete.
int wait_host(MPI_Request* req, Idle idle, MPI_Status* status = MPI_STATUS_IGNORE,
              Ride ride = Ride::kAlone, bool tested = false);
int wait_host_all(int n, MPI_Request* reqs, Idle idle);

}  // namespace osprey::progress
