// Small agreements among the ranks of a communicator during collective osprey calls, run as
// nonblocking host collectives while osprey's progress engine keeps serving messages.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace osprey::rma {

// In place: vals[i] becomes the maximum over all ranks.
void agree_max(MPI_Comm comm, int64_t* vals, int n);

// Runs a nonblocking host collective that `rc` started to its end; its error code. The host's
// blocking collectives busy-poll: on an oversubscribed node each cost a time slice per rank
// that had no CPU (about 8 ms at 3 ranks on 2 CPUs), where osprey's wait hands the CPU over.
int finish_collective(int rc, MPI_Request* req);

// Tag for point-to-point setup traffic of the window with this id on the private communicator.
int setup_tag(uint64_t window_id);

}  // namespace osprey::rma
