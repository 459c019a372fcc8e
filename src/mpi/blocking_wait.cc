#include "mpi/blocking_wait.h"

#include "progress/engine.h"
#include "progress/host_wait.h"

namespace osprey::binding {
namespace {

bool predefined(MPI_Errhandler h) {
#ifdef MPI_ERRORS_ABORT
  if (h == MPI_ERRORS_ABORT) return true;
#endif
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN;
}

// The handler of `c` (MPI_ERRHANDLER_NULL for MPI_COMM_NULL), to free with release().
MPI_Errhandler handler_of(MPI_Comm c) {
  MPI_Errhandler h = MPI_ERRHANDLER_NULL;
  if (c != MPI_COMM_NULL) PMPI_Comm_get_errhandler(c, &h);
  return h;
}

void release(MPI_Errhandler& h) {
  if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
}

enum class Route {
  kRide,     // tested with the endpoint's slot in one host call: errors reach the same handler
  kAlone,    // tested alone: its errors reach the handler the host's own call would use
  kRedirect  // MPICH: the completion calls' handler is not `c`'s; they return, `c`'s is called
};

Route route_for(MPI_Comm c) {
#ifdef OSPREY_HOST_OPENMPI
  // The request's communicator either way; only the code a test of several passes differs,
  // which a predefined handler does not see.
  MPI_Errhandler mine = handler_of(c);
  const Route r = predefined(mine) ? Route::kRide : Route::kAlone;
  release(mine);
#else
  MPI_Errhandler world = handler_of(MPI_COMM_WORLD);
  MPI_Errhandler mine = c == MPI_COMM_WORLD ? MPI_ERRHANDLER_NULL : handler_of(c);
  Route r;
  if (mine != MPI_ERRHANDLER_NULL && mine != world)
    r = Route::kRedirect;
  else
    r = predefined(world) ? Route::kRide : Route::kAlone;
  release(mine);
  release(world);
#endif
  return r;
}

int wait(MPI_Request* req, MPI_Status* status, progress::Ride ride) {
  return progress::wait_host(req, progress::poll, status, ride);
}

// MPI_COMM_WORLD's handler is process-wide: it is swapped only where no other thread can be
// in MPI meanwhile. With threads the wait reports as the host's completion calls do.
int wait_redirected(MPI_Request* req, MPI_Status* status, MPI_Comm c) {
  if (progress::concurrent_threads.load(std::memory_order_relaxed))
    return wait(req, status, progress::Ride::kAlone);
  MPI_Errhandler world = handler_of(MPI_COMM_WORLD);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = wait(req, status, progress::Ride::kAlone);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
  release(world);
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(c, rc);
  return rc;
}

}  // namespace

int finish_blocking(MPI_Request* req, MPI_Status* status, MPI_Comm c) {
  switch (route_for(c)) {
    case Route::kRide:
      return wait(req, status, progress::Ride::kWithSlot);
    case Route::kRedirect:
      return wait_redirected(req, status, c);
    case Route::kAlone:
      break;
  }
  return wait(req, status, progress::Ride::kAlone);
}

}  // namespace osprey::binding
