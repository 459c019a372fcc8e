// osprey's process-wide state: initialized lazily by the first osprey call, torn down from a
// delete callback on an MPI_COMM_SELF attribute (which runs first in MPI_Finalize, also when
// MPI_Finalize is reached from Fortran or another path that bypasses an interposed symbol).
#pragma once

#include "util/status.h"

namespace osprey::rma {

// Initializes on first call; fails if MPI is not initialized (or already finalized).
Status ensure_runtime();

bool runtime_finalized();

// Called right after the host's MPI_Init (collective over MPI_COMM_WORLD): learns whether this
// job can use the message path at all (ranks on more than one node, OSPREY_TRANSPORT=am, node
// peers that cross-memory attach cannot reach, or a spawned job), the same answer on every
// rank.
void on_host_init();
// True unless on_host_init() found that no window of this job can ever use the message path
// (also true when it never ran, e.g. MPI_Init was not seen).
bool job_may_use_messages();

}  // namespace osprey::rma
