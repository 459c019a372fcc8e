// MPI_Type_free, so that the datatype cache drops a handle before the host may reuse it
// (datatype/type_cache.cc). Fortran bindings of both hosts call the C MPI_/PMPI_ names, which
// land here too.
#include "datatype/type_info.h"
#include "mpi/binding.h"
#include "mpi/host.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Type_free(MPI_Datatype* type) {
  if (type) dt::forget(*type);
  return host::fn().type_free(type);
}
OSPREY_ALIAS(MPI_Type_free)
