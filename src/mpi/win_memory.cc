// Dynamic window attach/detach, and MPI_Alloc_mem/MPI_Free_mem.
#include "mpi/binding.h"
#include "mpi/host.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->attach(base, size));
}
OSPREY_ALIAS(MPI_Win_attach)

OSPREY_EXPORT int PMPI_Win_detach(MPI_Win win, const void* base) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->detach(base));
}
OSPREY_ALIAS(MPI_Win_detach)

OSPREY_EXPORT int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return host::fn().alloc_mem(size, info, baseptr);
}
OSPREY_ALIAS(MPI_Alloc_mem)

OSPREY_EXPORT int PMPI_Free_mem(void* base) {
  return host::fn().free_mem(base);
}
OSPREY_ALIAS(MPI_Free_mem)
