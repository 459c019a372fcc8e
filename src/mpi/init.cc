// MPI_Init and MPI_Init_thread: the host initializes, then osprey learns, collectively over
// MPI_COMM_WORLD, whether this job can use the message path at all (see mpi/blocking.cc for
// what depends on it). Only the MPI_ names: a program that reaches the host's PMPI_Init
// directly leaves osprey assuming it can.
//
// MPI_Finalize: the progress thread stops before the host begins to finalize. Stopping it from
// the MPI_COMM_SELF delete callback (rma/runtime.cc, still the fallback) is too late on MPICH
// 4.0.2: a host call the thread was making when MPI_Finalize began could return with the
// host's global lock still held, and MPI_Finalize then aborted destroying it. The types kept
// for reuse (datatype/type_pool.h) are freed at the host first.
#include "datatype/type_pool.h"
#include "mpi/binding.h"
#include "progress/engine.h"
#include "progress/thread.h"
#include "rma/runtime.h"
#include "util/config.h"

using namespace osprey;

namespace {

// Before anything takes an engine lock: whether those locks must exclude other threads.
void learn_threads() {
  int level = MPI_THREAD_MULTIPLE;
  PMPI_Query_thread(&level);
  progress::set_concurrent(level == MPI_THREAD_MULTIPLE || config().progress_thread);
}

}  // namespace

OSPREY_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    learn_threads();
    rma::on_host_init();
    dt::pool_open();
  }
  return rc;
}

OSPREY_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    learn_threads();
    rma::on_host_init();
    dt::pool_open();
  }
  return rc;
}

OSPREY_EXPORT int MPI_Finalize() {
  progress::stop_thread();
  for (MPI_Datatype t : dt::pool_close())
    PMPI_Type_free(&t);
  return PMPI_Finalize();
}
