// These tests run the engine without osprey's binding, so MPI_Type_free here does what the
// binding's does (mpi/type_free.cc): the datatype cache forgets a handle before the host frees
// it and may hand the handle out again.
#include <mpi.h>

#include "datatype/type_info.h"

extern "C" int MPI_Type_free(MPI_Datatype* type) {
  if (type) osprey::dt::forget(*type);
  return PMPI_Type_free(type);
}
