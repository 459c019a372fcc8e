// The host MPI's own implementations of the RMA calls that osprey overrides (both MPI_ and
// PMPI_ names are ours), for the few things osprey asks of the host on an anchor window.
#pragma once

#include <mpi.h>

namespace osprey::host {

struct Functions {
  int (*win_create_dynamic)(MPI_Info, MPI_Comm, MPI_Win*);
  int (*win_allocate)(MPI_Aint, int, MPI_Info, MPI_Comm, void*, MPI_Win*);
  int (*win_free)(MPI_Win*);
  int (*win_get_attr)(MPI_Win, int, void*, int*);
  int (*win_set_attr)(MPI_Win, int, void*);
  int (*win_delete_attr)(MPI_Win, int);
  int (*win_create_keyval)(MPI_Win_copy_attr_function*, MPI_Win_delete_attr_function*, int*, void*);
  int (*win_free_keyval)(int*);
  int (*win_set_name)(MPI_Win, const char*);
  int (*win_get_name)(MPI_Win, char*, int*);
  int (*win_create_errhandler)(MPI_Win_errhandler_function*, MPI_Errhandler*);
  int (*win_set_errhandler)(MPI_Win, MPI_Errhandler);
  int (*win_get_errhandler)(MPI_Win, MPI_Errhandler*);
  int (*win_call_errhandler)(MPI_Win, int);
  int (*alloc_mem)(MPI_Aint, MPI_Info, void*);
  int (*free_mem)(void*);
  int (*type_free)(MPI_Datatype*);
  int (*type_set_name)(MPI_Datatype, const char*);
  int (*type_get_contents)(MPI_Datatype, int, int, int, int[], MPI_Aint[], MPI_Datatype[]);
#if MPI_VERSION >= 4
  int (*type_get_contents_c)(MPI_Datatype, MPI_Count, MPI_Count, MPI_Count, MPI_Count, int[],
                             MPI_Aint[], MPI_Count[], MPI_Datatype[]);
#endif
  int (*type_create_keyval)(MPI_Type_copy_attr_function*, MPI_Type_delete_attr_function*, int*,
                            void*);
};

// Resolved on first use; aborts with a message if the host library cannot be found.
const Functions& fn();

}  // namespace osprey::host
