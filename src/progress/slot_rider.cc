#include "progress/slot_rider.h"

namespace osprey::progress {
namespace {

thread_local SlotRider* rider __attribute__((tls_model("initial-exec"))) = nullptr;

}  // namespace

RiderScope::RiderScope(SlotRider& r) : outer_(rider) {
  rider = &r;
}

RiderScope::~RiderScope() {
  rider = outer_;
}

bool test_slot(MPI_Request* slot, MPI_Status* st, MPI_Request* extra) {
  SlotRider* r = rider;
  const bool ride = r && !r->tested && *r->req != MPI_REQUEST_NULL;
  if (extra && *extra == MPI_REQUEST_NULL) extra = nullptr;
  if (!ride && !extra) {
    int flag = 0;
    PMPI_Test(slot, &flag, st);
    return flag;
  }
  MPI_Request reqs[3] = {*slot, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int k = 1;
  const int ri = ride ? k++ : -1;
  const int ei = extra ? k++ : -1;
  if (ride) reqs[ri] = *r->req;
  if (extra) reqs[ei] = *extra;
  MPI_Status sts[3];
  int n = 0, which[3];
  const int rc = PMPI_Testsome(k, reqs, &n, which, sts);
  *slot = reqs[0];
  if (extra) *extra = reqs[ei];
  if (ride) {
    *r->req = reqs[ri];
    r->tested = true;
  }
  bool slot_done = false;
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // The call failed before completing any (both hosts check their arguments first): the
    // wait returns the code with its request still active, as after a failed MPI_Test.
    if (ride) r->rc = rc;
    return false;
  }
  for (int i = 0; i < n; ++i) {  // n is MPI_UNDEFINED (negative) if none was active
    if (which[i] == 0) {
      *st = sts[i];
      slot_done = true;
    } else if (which[i] == ri) {
      r->done = true;
      r->status = sts[i];
      if (rc == MPI_ERR_IN_STATUS) r->rc = sts[i].MPI_ERROR;
    }
  }
  return slot_done;
}

int rider_result(const SlotRider& r, MPI_Status* status) {
  if (r.done && status != MPI_STATUS_IGNORE) {
    const int keep = status->MPI_ERROR;
    *status = r.status;
    status->MPI_ERROR = keep;
  }
  return r.rc;
}

}  // namespace osprey::progress
