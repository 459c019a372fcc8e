// osprey's process-wide state: initialized lazily by the first osprey call, torn down from a
// delete callback on an MPI_COMM_SELF attribute (which runs first in MPI_Finalize, also when
// MPI_Finalize is reached from Fortran or another path that bypasses an interposed symbol).
#pragma once

#include "util/status.h"

namespace osprey::rma {

// Initializes on first call; fails if MPI is not initialized (or already finalized).
Status ensure_runtime();

bool runtime_finalized();

}  // namespace osprey::rma
