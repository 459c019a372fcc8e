// Fence epochs of one window: MPI_Win_fence. Among node-local ranks it is a barrier on the
// window segment (no messages), which also checks that the assertions ranks must share agree;
// a window with message-path targets runs the message path's fence (am_sync.cc).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "util/status.h"

namespace osprey::rma {

class Window;

// The assertions every rank must give together in a fence (MPI-3.1 11.5.5), as two flag bits
// for the barrier that compares them (the constants' values differ between MPI libraries).
inline uint16_t fence_collective_bits(int assert) {
  return static_cast<uint16_t>(((assert& MPI_MODE_NOPRECEDE) ? 1 : 0) |
                               ((assert& MPI_MODE_NOSUCCEED) ? 2 : 0));
}

class FenceEpoch {
 public:
  explicit FenceEpoch(Window& w) : w_(w) {}

  Status fence(int assert);

  // An RMA call was made in the current fence epoch (the fast path calls this on every one).
  void note_op() {
    if (!ops_.load(std::memory_order_relaxed)) ops_.store(true, std::memory_order_relaxed);
  }
  bool has_ops() const { return ops_.load(std::memory_order_relaxed); }

 private:
  Window& w_;
  std::atomic<bool> ops_{false};  // RMA calls issued since the last fence
};

}  // namespace osprey::rma
