// Open MPI gives the CPU away in every pass of its progress loop that finds nothing to do when
// it counts more ranks than slots (mpi_yield_when_idle). osprey's waits test host requests in
// a loop and yield by their own policy (backoff.h): with the host yielding as well in each of a
// round's two or three tests, 3 ranks on 2 CPUs on the message path ran 3x slower
// (acc_counters under Open MPI: 3.1-3.9 s, 1.0-1.2 with the host's idle yields off). So while
// a thread is in one of osprey's waits, the host's idle yields are off; the host's own waits
// (a blocking call osprey leaves alone) keep them.
#pragma once

namespace osprey::progress {

// After MPI_Init: finds the host's switch (Open MPI's opal_progress_yield_when_idle) and
// whether it is on. MPICH has none.
void find_host_yield();

// For the lifetime of a wait.
class HostYieldOff {
 public:
  HostYieldOff();
  ~HostYieldOff();
  HostYieldOff(const HostYieldOff&) = delete;
  HostYieldOff& operator=(const HostYieldOff&) = delete;

 private:
  bool active_;
};

}  // namespace osprey::progress
