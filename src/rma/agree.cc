#include "rma/agree.h"

#include "progress/host_wait.h"

namespace osprey::rma {

void agree_max(MPI_Comm comm, int64_t* vals, int n) {
  MPI_Request req;
  PMPI_Iallreduce(MPI_IN_PLACE, vals, n, MPI_INT64_T, MPI_MAX, comm, &req);
  progress::wait_host(&req, progress::poll);
}

int finish_collective(int rc, MPI_Request* req) {
  return rc == MPI_SUCCESS ? progress::wait_host(req, progress::poll) : rc;
}

int setup_tag(uint64_t window_id) {
  // Tags 1..29999 are setup traffic; message-path packets use tags above (see transport/am).
  return 1 + static_cast<int>(window_id % 29999);
}

}  // namespace osprey::rma
