#include "mpi/blocking_wait.h"

#include "progress/engine.h"
#include "progress/host_wait.h"

namespace osprey::binding {
namespace {

int wait(MPI_Request* req, MPI_Status* status, progress::Ride ride, bool tested = false) {
  return progress::wait_host(req, progress::poll, status, ride, tested);
}

#ifndef OSPREY_HOST_OPENMPI
bool predefined(MPI_Errhandler h) {
#ifdef MPI_ERRORS_ABORT
  if (h == MPI_ERRORS_ABORT) return true;
#endif
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN;
}

// The handler of `c`, to free with release().
MPI_Errhandler handler_of(MPI_Comm c) {
  MPI_Errhandler h = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(c, &h);
  return h;
}

void release(MPI_Errhandler& h) {
  if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
}

// MPICH: MPI_Test reports a request's error to MPI_COMM_WORLD's handler with its code, where
// the host's blocking call on `c` reports to `c`'s; a test of several (the wait's tests ride
// with the request slot) reports MPI_ERR_IN_STATUS, and a fatal handler then aborts without
// naming the error. So the wait runs with MPI_COMM_WORLD returning errors and calls the right
// handler itself with the request's code. MPI_COMM_WORLD's handler is process-wide: it is
// swapped only where no other thread can be in MPI meanwhile, and only once the request did not
// complete at its first test.
int finish_mpich(MPI_Request* req, MPI_Status* status, MPI_Comm c) {
  // Whether MPI_Test alone reports as the blocking call would: to the same handler (c is
  // MPI_COMM_WORLD, or unknown as in MPI_Wait, whose host form reports as MPI_Test does), or to
  // one that does not see which communicator it was given. Only another communicator needs
  // its handler looked up before the first test.
  bool alike = true;
  if (c != MPI_COMM_NULL && c != MPI_COMM_WORLD) {
    MPI_Errhandler world = handler_of(MPI_COMM_WORLD), mine = handler_of(c);
    alike = mine == world && predefined(world);
    release(mine);
    release(world);
  }
  if (alike) {
    int done = 0;
    const int rc = PMPI_Test(req, &done, status);
    if (done || rc != MPI_SUCCESS) return rc;
  }
  MPI_Errhandler world = handler_of(MPI_COMM_WORLD);
  const bool returns = world == MPI_ERRORS_RETURN;
  if (progress::concurrent_threads.load(std::memory_order_relaxed)) {
    // Another thread's errors must reach the handlers they would: nothing is swapped, and the
    // request rides only where the code MPI_COMM_WORLD's handler sees makes no difference.
    release(world);
    return wait(req, status, alike && returns ? progress::Ride::kWithSlot : progress::Ride::kAlone,
                alike);
  }
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = wait(req, status, progress::Ride::kWithSlot, alike);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
  release(world);
  // osprey's own tests during the wait returned their errors too; it checks those it acts on.
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(c == MPI_COMM_NULL ? MPI_COMM_WORLD : c, rc);
  return rc;
}
#endif

}  // namespace

int finish_blocking(MPI_Request* req, MPI_Status* status, MPI_Comm c) {
#ifdef OSPREY_HOST_OPENMPI
  // Open MPI reports an error of a completed request to the handler of the request's own
  // communicator, with the request's code, from a test of one or of several alike.
  (void)c;
  return wait(req, status, progress::Ride::kWithSlot);
#else
  return finish_mpich(req, status, c);
#endif
}

}  // namespace osprey::binding
