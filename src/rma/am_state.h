// What a window keeps for its message path: the origin's operation table and epoch counters,
// and the target's per-origin queues, lock grants, fence signals and PSCW completions.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "datatype/type_info.h"
#include "rma/op_table.h"
#include "rma/shm_lock.h"
#include "transport/am/packet.h"

namespace osprey::rma {

// A request the target could not finish when it arrived.
struct Deferred {
  const char* msg = nullptr;  // in the receive slot, or in `copy` once the request waits
  std::vector<char> copy;     // a waiting request's own copy (the slot takes the next one)
  std::size_t n = 0;
  uint8_t stage = 0;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::vector<char> layout;  // a layout that came separately
  std::vector<char> data;    // a payload that came separately (accumulates)
};

// Target side: everything about one origin.
struct OriginState {
  std::deque<Deferred> queue;  // requests in arrival order; the head blocks the rest
  shm_lock::AsyncLock lock;    // the origin's passive-target lock on this window
  uint32_t pscw_posts = 0;     // exposure epochs posted to this origin
  int error = 0;               // an error of a request without reply, told at the next ack
};

struct AmState {
  // Origin side.
  OpTable table;
  uint32_t fence_epoch = 0;                       // fences called so far
  std::unordered_map<int, uint32_t> pscw_starts;  // access epochs started toward each target
  std::unordered_set<int> lockall_locked;         // lock_all, per-target protocol: lock sent
  bool lockall_window_protocol = false;           // lock_all fell back to locking every rank
  int error = 0;                                  // a target reported an error: tell at sync
  // Target side.
  std::unordered_map<int, OriginState> origins;
  int last_origin = -1;
  OriginState* last_state = nullptr;
  // Scratch space of request execution, reused so that a request allocates nothing.
  dt::TypeInfo scratch_type;
  std::vector<char> scratch_operand, scratch_old;
  uint32_t deferred = 0;        // requests waiting in origin queues
  uint32_t pscw_completes = 0;  // completes toward the open exposure epoch
  struct FenceSignal {
    uint32_t count = 0;
    uint32_t any = 0, all = 0xffff;
  };
  FenceSignal fence_signals[2][32];  // [epoch parity][round]
};

}  // namespace osprey::rma
