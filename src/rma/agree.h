// Small agreements among the ranks of a communicator during collective osprey calls, run as
// nonblocking host collectives while osprey's progress engine keeps serving messages.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace osprey::rma {

// In place: vals[i] becomes the maximum over all ranks.
void agree_max(MPI_Comm comm, int64_t* vals, int n);

// Tag for point-to-point setup traffic of the window with this id on the private communicator.
int setup_tag(uint64_t window_id);

}  // namespace osprey::rma
