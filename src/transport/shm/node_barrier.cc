#include "transport/shm/node_barrier.h"

#include "progress/backoff.h"
#include "util/futex.h"

namespace osprey::shm {

BarrierResult node_barrier(BarrierState& s, uint32_t nranks, uint32_t bits) {
  cpu::mem_sync();  // expose everything this rank did before the barrier
  const uint32_t g = s.generation.load(std::memory_order_acquire);
  const uint32_t p = g & 1;
  if (nranks > 1) {
    s.bits_or[p].fetch_or(bits, std::memory_order_relaxed);
    s.bits_nor[p].fetch_or(~bits, std::memory_order_relaxed);
  }
  if (nranks == 1 || s.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == nranks) {
    if (nranks == 1) {
      s.result_or[p].store(bits, std::memory_order_relaxed);
      s.result_and[p].store(bits, std::memory_order_relaxed);
    } else {
      s.result_or[p].store(s.bits_or[p].load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
      s.result_and[p].store(~s.bits_nor[p].load(std::memory_order_relaxed),
                            std::memory_order_relaxed);
      // Parity p^1 was last used by the previous round, which everyone has left.
      s.bits_or[p ^ 1].store(0, std::memory_order_relaxed);
      s.bits_nor[p ^ 1].store(0, std::memory_order_relaxed);
      s.arrived.store(0, std::memory_order_relaxed);
    }
    s.generation.store(g + 1, std::memory_order_seq_cst);
    if (s.sleepers.load(std::memory_order_seq_cst) != 0) futex::wake_all(&s.generation);
  } else {
    progress::Backoff b;
    while (s.generation.load(std::memory_order_acquire) == g) {
      progress::poll();
      if (!b.sleeping()) {
        b.pause();
        continue;
      }
      s.sleepers.fetch_add(1, std::memory_order_seq_cst);
      if (s.generation.load(std::memory_order_seq_cst) == g) b.pause_on(&s.generation, g);
      s.sleepers.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  BarrierResult r{s.result_or[p].load(std::memory_order_relaxed),
                  s.result_and[p].load(std::memory_order_relaxed)};
  cpu::mem_sync();  // later accesses see everything the others did before the barrier
  return r;
}

}  // namespace osprey::shm
