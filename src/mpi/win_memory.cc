// Dynamic window attach/detach, and MPI_Alloc_mem/MPI_Free_mem (node-shared memory, so that
// windows created over it are reached with loads and stores: transport/shm/user_memory.h).
#include "mpi/binding.h"
#include "mpi/host.h"
#include "transport/shm/user_memory.h"

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
  // Hints (none is defined by the standard) do not change where the memory comes from; the
  // host checks the arguments and serves what shared memory cannot.
  if (size > 0 && baseptr) {
    if (void* p = shm::user_memory::alloc(static_cast<std::size_t>(size))) {
      *static_cast<void**>(baseptr) = p;
      return MPI_SUCCESS;
    }
  }
  return host::fn().alloc_mem(size, info, baseptr);
}
OSPREY_ALIAS(MPI_Alloc_mem)

OSPREY_EXPORT int PMPI_Free_mem(void* base) {
  if (base && shm::user_memory::free(base)) return MPI_SUCCESS;
  return host::fn().free_mem(base);
}
OSPREY_ALIAS(MPI_Free_mem)
