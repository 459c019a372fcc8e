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

bool test_slot(MPI_Request* slot, MPI_Status* st) {
  SlotRider* r = rider;
  if (!r || r->tested || *r->req == MPI_REQUEST_NULL) {
    int flag = 0;
    PMPI_Test(slot, &flag, st);
    return flag;
  }
  MPI_Request reqs[2] = {*slot, *r->req};
  MPI_Status sts[2];
  int n = 0, which[2];
  const int rc = PMPI_Testsome(2, reqs, &n, which, sts);
  *slot = reqs[0];
  *r->req = reqs[1];
  r->tested = true;
  bool slot_done = false;
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // The call failed before completing either (both hosts check their arguments first): the
    // wait returns the code with its request still active, as after a failed MPI_Test.
    r->rc = rc;
    return false;
  }
  for (int i = 0; i < n; ++i) {  // n is MPI_UNDEFINED (negative) if neither was active
    if (which[i] == 0) {
      *st = sts[i];
      slot_done = true;
    } else {
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
