#include "progress/host_wait.h"

#include "progress/backoff.h"

namespace osprey::progress {

void wait_host(MPI_Request* req, MPI_Status* status) {
  int done = 0;
  Backoff b;
  for (;;) {
    PMPI_Test(req, &done, status);
    if (done) return;
    if (poll())
      b.reset();
    else
      b.pause();
  }
}

void wait_host_all(int n, MPI_Request* reqs) {
  int done = 0;
  Backoff b;
  for (;;) {
    PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if (poll())
      b.reset();
    else
      b.pause();
  }
}

}  // namespace osprey::progress
