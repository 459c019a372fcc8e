// Request handles for MPI_Rput and friends: host generalized requests, so every host
// completion call (MPI_Wait, MPI_Testall, ...) understands them.
#pragma once

#include <mpi.h>

namespace osprey::binding {

// A request that is already complete (the operation finished when it was issued).
int completed_request(MPI_Request* req);

}  // namespace osprey::binding
