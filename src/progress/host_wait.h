// Waits for host MPI requests while running osprey's progress engine, so a process blocked in
// an osprey call still serves the messages other processes send it.
#pragma once

#include <mpi.h>

namespace osprey::progress {

// Both return the host's return code of the test that completed (or failed).
int wait_host(MPI_Request* req, MPI_Status* status = MPI_STATUS_IGNORE);
int wait_host_all(int n, MPI_Request* reqs);

}  // namespace osprey::progress
