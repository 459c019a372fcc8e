#include "progress/host_wait.h"

#include "progress/backoff.h"

namespace osprey::progress {

int wait_host(MPI_Request* req, Idle idle, MPI_Status* status) {
  int done = 0;
  Backoff b;
  for (;;) {
    const int rc = PMPI_Test(req, &done, status);
    if (done || rc != MPI_SUCCESS) return rc;
    if (idle && idle())
      b.reset();
    else
      b.pause_polled();
  }
}

int wait_host_all(int n, MPI_Request* reqs, Idle idle) {
  int done = 0;
  Backoff b;
  for (;;) {
    const int rc = PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (done || rc != MPI_SUCCESS) return rc;
    if (idle && idle())
      b.reset();
    else
      b.pause_polled();
  }
}

}  // namespace osprey::progress
