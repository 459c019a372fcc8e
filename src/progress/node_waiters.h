// How many of the node's ranks are waiting inside osprey right now, on one word the node's ranks
// share (MPI_COMM_WORLD's node, oversubscribed). A call a program spins on yields its CPU now
// and then (pace_spinning_caller) so that the rank it polls for gets to run; when every other
// rank of the node is itself waiting (in a barrier, for this rank's epoch, ...), nobody needs the
// CPU, and a yield only hands it round the waiters: posting 32 puts + flush_all at 8 ranks on 2
// CPUs, seven of them in MPI_Barrier, took 0.8-1.3 us per batch with that yield and 0.4-0.7
// without (under Open MPI's launcher).
#pragma once

#include <atomic>
#include <cstdint>

namespace osprey::progress {

// Starts (word non-null) or stops counting on `word`, a zeroed word in memory the node's
// `node_ranks` ranks share.
void share_node_waiters(std::atomic<uint32_t>* word, int node_ranks);

// Whether every other rank of the node is in an osprey wait past its first spins that only
// watches shared memory (not one in a process with message endpoints, which needs its CPU to
// serve requests and to advance its own messages: counting those took a queue lock polled on
// the message path at 3 ranks on 2 CPUs from 46-75 to 85-1,300 us per hand-over). Threads of one
// process each count: they may make it answer true while some rank still works, which only
// leaves a spinner to its time slice, as before pacing existed.
bool node_peers_all_waiting();

// A wait's mark on the shared word, set once it stops spinning and cleared when it ends or finds
// work (nothing without a shared word).
class WaiterMark {
 public:
  WaiterMark() = default;
  WaiterMark(const WaiterMark&) = delete;
  WaiterMark& operator=(const WaiterMark&) = delete;
  ~WaiterMark() { clear(); }
  void set() {
    if (!word_) set_slow();
  }
  void clear() {
    if (word_) clear_slow();
  }

 private:
  void set_slow();
  void clear_slow();
  std::atomic<uint32_t>* word_ = nullptr;
};

}  // namespace osprey::progress
