#include "progress/host_wait.h"

#include "progress/backoff.h"
#include "progress/slot_rider.h"

namespace osprey::progress {

int wait_host(MPI_Request* req, Idle idle, MPI_Status* status, Ride ride, bool tested) {
  int done = 0;
  if (!tested) {
    const int rc = PMPI_Test(req, &done, status);
    if (done || rc != MPI_SUCCESS) return rc;
  }
  // From here on the request may ride with the endpoint's slot test where `idle` makes one:
  // one host progress pass per round instead of two.
  Backoff b;
  for (;;) {
    SlotRider r{req};
    bool did = false;
    if (idle && ride == Ride::kWithSlot) {
      const RiderScope scope(r);
      did = idle();
    } else if (idle) {
      did = idle();
    }
    if (!r.tested) {
      r.rc = PMPI_Test(req, &done, status);
      if (done || r.rc != MPI_SUCCESS) return r.rc;
    } else if (r.done || r.rc != MPI_SUCCESS) {
      return rider_result(r, status);
    }
    if (did)
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
