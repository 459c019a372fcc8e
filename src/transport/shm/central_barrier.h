// A barrier among the ranks of one node for oversubscribed nodes: one shared arrival counter,
// and the last rank to arrive opens the barrier for everyone with one futex wake. The
// dissemination barrier (node_barrier.h) is faster when every rank has a CPU, but on a node
// with more ranks than CPUs each of its log2(n) rounds is a hand-over through the scheduler;
// here each waiter is woken once. Like the dissemination barrier, each rank contributes 16
// bits of flags and everyone learns their OR and AND (fence assertions).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "progress/doorbell.h"
#include "progress/engine.h"
#include "transport/shm/node_barrier.h"
#include "util/cpu.h"

namespace osprey::shm {

// The shared part, all-zero initially.
struct CentralBarrierWords {
  alignas(cpu::kCacheLine) std::atomic<uint32_t> arrived;  // ranks in the current barrier
  // By barrier parity: OR of the flags, and OR of their complements (so that all-zero is the
  // empty AND). Reset by the barrier after next, once everyone has read them.
  std::atomic<uint32_t> any[2], none[2];
  alignas(cpu::kCacheLine) std::atomic<uint32_t> opened;  // the last barrier that opened
  progress::Doorbell bell;                                // rung when one opens
};

class CentralBarrier {
 public:
  CentralBarrier() = default;
  CentralBarrier(CentralBarrierWords* w, uint32_t nranks) : w_(w), n_(nranks) {}

  // Blocks until every rank arrived, running `idle` while it waits (with an idle it yields
  // instead of sleeping: progress must keep running); full memory barriers before and after.
  // Without an idle, `host_poke` (if given) runs every kRoundsPerPoke rounds of spinning or
  // yielding, and between sleeps of at most kPokeSleepNs.
  BarrierResult arrive_and_wait(uint16_t flags, progress::Idle idle,
                                progress::Idle host_poke = nullptr);
  static constexpr long kPokeSleepNs = 100'000;
  static constexpr uint32_t kRoundsPerPoke = 8;

 private:
  CentralBarrierWords* w_ = nullptr;
  uint32_t n_ = 1;
  uint32_t epoch_ = 0;
};

}  // namespace osprey::shm
