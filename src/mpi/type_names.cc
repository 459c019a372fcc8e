// What makes freeing a type observable, so that such types are not kept for reuse
// (datatype/type_pool.h): a name (a type built anew has none), and type attributes (their delete
// callbacks run when the type is freed). Both names are osprey's, as the hosts' Fortran
// bindings call either; the Fortran bindings set attributes through the hosts' internals, but
// MPICH's create their keyvals through these, and Open MPI's free through PMPI_Type_free, which
// never keeps a type.
#include "datatype/type_pool.h"
#include "mpi/binding.h"
#include "mpi/host.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Type_set_name(MPI_Datatype type, const char* name) {
  const int rc = host::fn().type_set_name(type, name);
  if (rc == MPI_SUCCESS) dt::pool_mark_named(type);
  return rc;
}
OSPREY_ALIAS(MPI_Type_set_name)

OSPREY_EXPORT int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy,
                                          MPI_Type_delete_attr_function* del, int* keyval,
                                          void* extra) {
  for (MPI_Datatype t : dt::pool_close())
    PMPI_Type_free(&t);
  return host::fn().type_create_keyval(copy, del, keyval, extra);
}
OSPREY_ALIAS(MPI_Type_create_keyval)
