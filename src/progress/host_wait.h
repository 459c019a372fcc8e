// Waits for host MPI requests, running `idle` (progress::poll at a safe point, so that a process
// blocked in an osprey call still serves the messages other processes send it) between tests.
#pragma once

#include <mpi.h>

#include "progress/engine.h"

namespace osprey::progress {

// Both return the host's return code of the test that completed (or failed).
int wait_host(MPI_Request* req, Idle idle, MPI_Status* status = MPI_STATUS_IGNORE);
int wait_host_all(int n, MPI_Request* reqs, Idle idle);

}  // namespace osprey::progress
