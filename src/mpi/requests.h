// Request handles for MPI_Rput and friends: host generalized requests, so every host
// completion call (MPI_Wait, MPI_Testall, ...) understands them.
#pragma once

#include <mpi.h>

namespace osprey::binding {

// A started generalized request, for the engine to complete when the operation completes
// locally.
int start_request(MPI_Request* req);

}  // namespace osprey::binding
