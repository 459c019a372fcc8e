// A barrier among the ranks of one node on flags in a shared segment: no messages. It is a
// dissemination barrier: in round k rank i signals rank i+2^k and waits for rank i-2^k, each
// rank spinning only on its own flag lines, so two ranks meet after one cache-line hop. Each
// rank also contributes 16 bits of flags and everyone learns their OR and AND (used to check
// that fence assertions agree).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "progress/engine.h"
#include "util/cpu.h"

namespace osprey::shm {

// One flag: written by exactly one sender, read by its owner. All-zero is the initial state.
struct alignas(cpu::kCacheLine) BarrierSlot {
  std::atomic<uint64_t> word;  // epoch (low 32 bits) | OR of flags << 32 | AND of flags << 48
  std::atomic<uint32_t> sleeping;
};

// Slots a node of `nranks` needs (rank, round, epoch parity).
std::size_t barrier_slot_count(uint32_t nranks);

struct BarrierResult {
  uint32_t any;  // OR of every rank's flags
  uint32_t all;  // AND of every rank's flags
};

class NodeBarrier {
 public:
  NodeBarrier() = default;
  NodeBarrier(BarrierSlot* slots, uint32_t nranks, uint32_t me);

  // Blocks until every rank arrived, running `idle` while it waits (see progress/engine.h);
  // full memory barriers before and after.
  BarrierResult arrive_and_wait(uint16_t flags, progress::Idle idle);

 private:
  BarrierSlot& slot(uint32_t owner, uint32_t round, uint32_t parity) const {
    return slots_[(owner * rounds_ + round) * 2 + parity];
  }
  BarrierSlot* slots_ = nullptr;
  uint32_t n_ = 1, me_ = 0, rounds_ = 0;
  uint32_t epoch_ = 0;
};

}  // namespace osprey::shm
