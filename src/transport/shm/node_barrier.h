// A barrier among the ranks of one node, on words in a shared segment: no messages. Each rank
// also contributes a word of flags, and everyone learns their OR and AND (used to check that
// fence assertions agree across ranks).
#pragma once

#include <atomic>
#include <cstdint>

#include "util/cpu.h"

namespace osprey::shm {

// Lives in shared memory; all-zero is the valid initial state.
struct BarrierState {
  // Written by every arriving rank.
  alignas(cpu::kCacheLine) std::atomic<uint32_t> arrived;
  std::atomic<uint32_t> sleepers;
  std::atomic<uint32_t> bits_or[2];
  std::atomic<uint32_t> bits_nor[2];  // OR of complements, so that zeroed memory is a valid start
  // Written once per round by the last arriver; waited on by the others.
  alignas(cpu::kCacheLine) std::atomic<uint32_t> generation;
  std::atomic<uint32_t> result_or[2];
  std::atomic<uint32_t> result_and[2];
};

struct BarrierResult {
  uint32_t any;  // OR of every rank's bits
  uint32_t all;  // AND of every rank's bits
};

// Blocks until all `nranks` ranks arrived; full memory barriers before and after.
BarrierResult node_barrier(BarrierState& s, uint32_t nranks, uint32_t bits);

}  // namespace osprey::shm
