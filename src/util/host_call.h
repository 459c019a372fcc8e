// A host MPI call's return code as osprey's Status: the host's error class, with a sentence
// naming what osprey was doing (the host's own message is not kept: it may describe a
// communicator the user never saw).
#pragma once

#include <mpi.h>

#include "util/status.h"

namespace osprey {

inline Status host_call(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return kOk;
  int cls = MPI_ERR_OTHER;
  if (PMPI_Error_class(rc, &cls) != MPI_SUCCESS || cls == MPI_SUCCESS) cls = MPI_ERR_OTHER;
  return Err(cls, what);
}

}  // namespace osprey
