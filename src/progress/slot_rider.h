// A host request that a thread waiting in a blocking host call has tested in the same host call
// as the message endpoint's oldest request slot. On MPICH every test of a request runs the host's
// whole progress first, complete or not (over loopback TCP two epoll_wait calls: 0.53 us per test,
// the same for a Testsome of two requests), so a wait that tested its own request and then the
// slot paid two progress passes per round, and a message the first pass took in was seen only
// after the second.
#pragma once

#include <mpi.h>

namespace osprey::progress {

struct SlotRider {
  MPI_Request* req;      // updated in place, as by MPI_Test
  bool tested = false;   // an endpoint tested it in this round
  bool done = false;     // ... and it completed
  int rc = MPI_SUCCESS;  // the test's return code for this request
  MPI_Status status{};   // valid when done
};

// Makes `r` the calling thread's rider while the scope lasts.
class RiderScope {
 public:
  explicit RiderScope(SlotRider& r);
  ~RiderScope();
  RiderScope(const RiderScope&) = delete;
  RiderScope& operator=(const RiderScope&) = delete;

 private:
  SlotRider* outer_;
};

// For an endpoint testing its slot: tests `slot` and, if the calling thread has a rider not yet
// tested in this round, the rider too, and `extra` if given (a receive the engine is blocked on,
// am::watch; updated in place, its status dropped as its owner drops it), in one host call.
// Returns whether the slot completed, with its status in *st.
bool test_slot(MPI_Request* slot, MPI_Status* st, MPI_Request* extra = nullptr);

// The rider's request through `status`, as MPI_Test would have returned it (its MPI_ERROR
// field left alone). Returns the test's return code.
int rider_result(const SlotRider& r, MPI_Status* status);

}  // namespace osprey::progress
