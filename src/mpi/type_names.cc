// What makes a type unfit to keep for reuse (datatype/type_pool.h): a name (a type built anew
// has none), type attributes (their delete callbacks run when the type is freed), and a
// handle MPI_Type_get_contents returned (under MPICH the very handle of a derived argument,
// with one more reference, so the program's free of it may not be its last). Both names are
// osprey's, as the hosts' Fortran bindings and libraries (ROMIO) call either; the Fortran
// bindings set attributes through the hosts' internals, but MPICH's create their keyvals
// through these, and Open MPI's free through PMPI_Type_free, which never keeps a type.
#include "datatype/type_info.h"
#include "datatype/type_pool.h"
#include "mpi/binding.h"
#include "mpi/host.h"

using namespace osprey;

namespace {

void never_keep(MPI_Datatype t) {
  MPI_Datatype kept = dt::pool_never_keep(t);
  if (kept != MPI_DATATYPE_NULL) PMPI_Type_free(&kept);
}

// The derived types among what a contents query returned.
template <class N>
int never_keep_returned(int rc, N n, const MPI_Datatype types[]) {
  if (rc != MPI_SUCCESS) return rc;
  for (N i = 0; i < n; ++i)
    if (!dt::predefined(types[i])) never_keep(types[i]);
  return rc;
}

}  // namespace

OSPREY_EXPORT int PMPI_Type_set_name(MPI_Datatype type, const char* name) {
  const int rc = host::fn().type_set_name(type, name);
  if (rc == MPI_SUCCESS) never_keep(type);
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

OSPREY_EXPORT int PMPI_Type_get_contents(MPI_Datatype type, int ni, int na, int nd, int ints[],
                                         MPI_Aint aints[], MPI_Datatype types[]) {
  return never_keep_returned(host::fn().type_get_contents(type, ni, na, nd, ints, aints, types), nd,
                             types);
}
OSPREY_ALIAS(MPI_Type_get_contents)

#if MPI_VERSION >= 4
OSPREY_EXPORT int PMPI_Type_get_contents_c(MPI_Datatype type, MPI_Count ni, MPI_Count na,
                                           MPI_Count nc, MPI_Count nd, int ints[], MPI_Aint aints[],
                                           MPI_Count counts[], MPI_Datatype types[]) {
  return never_keep_returned(
      host::fn().type_get_contents_c(type, ni, na, nc, nd, ints, aints, counts, types), nd, types);
}
OSPREY_ALIAS(MPI_Type_get_contents_c)
#endif
