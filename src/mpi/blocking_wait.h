// How an interposed blocking call (a nonblocking host call plus a wait that serves message-path
// requests, mpi/blocking.cc) waits for its request: tested with the endpoint's request slot
// where that can be done (progress/slot_rider.h), and so that an error reaches the handler, with
// the code, that the host's own blocking call would give it. The host's blocking calls report to
// their communicator's handler; MPICH's completion calls (MPI_Test, MPI_Wait, MPI_Testsome)
// report to MPI_COMM_WORLD's, whatever the request's communicator (a truncated MPI_Recv on a
// communicator that returns errors would abort the job), and a test of several passes
// MPI_ERR_IN_STATUS; Open MPI's report to the request's communicator with its code.
#pragma once

#include <mpi.h>

namespace osprey::binding {

// Waits for *req, a request of a blocking call on `c` (MPI_COMM_NULL: not known, as in
// MPI_Wait, whose host form reports as the completion calls do), running progress meanwhile.
// Returns the call's return code.
int finish_blocking(MPI_Request* req, MPI_Status* status, MPI_Comm c);

}  // namespace osprey::binding
