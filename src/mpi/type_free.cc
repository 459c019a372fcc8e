// MPI_Type_free, so that the datatype cache drops a handle before the host may reuse it
// (datatype/type_cache.cc). Fortran bindings of both hosts call the C MPI_/PMPI_ names, which
// land here too. Only a free by the MPI_ name may keep the type for a constructor called alike
// (datatype/type_pool.h): osprey's own layout types go by the PMPI_ name.
#include "datatype/type_info.h"
#include "datatype/type_pool.h"
#include "mpi/binding.h"
#include "mpi/errors.h"
#include "mpi/host.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Type_free(MPI_Datatype* type) {
  if (type && !dt::freeing_returned_handle()) dt::forget(*type);
  return host::fn().type_free(type);
}

OSPREY_EXPORT int MPI_Type_free(MPI_Datatype* type) {
  if (!type) return PMPI_Type_free(type);
  MPI_Datatype evicted;
  switch (dt::pool_keep(*type, &evicted)) {
    case dt::Keep::kNot:
      return PMPI_Type_free(type);
    case dt::Keep::kTwice:
      return errors::raise_no_object(
          Err(MPI_ERR_TYPE, "osprey: MPI_Type_free of a datatype already freed"));
    case dt::Keep::kKept:
      break;
  }
  *type = MPI_DATATYPE_NULL;
  if (evicted != MPI_DATATYPE_NULL) PMPI_Type_free(&evicted);
  return MPI_SUCCESS;
}
