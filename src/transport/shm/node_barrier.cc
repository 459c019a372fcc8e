#include "transport/shm/node_barrier.h"

#include "progress/backoff.h"
#include "util/futex.h"

namespace osprey::shm {
namespace {

uint32_t rounds_for(uint32_t n) {
  uint32_t r = 0;
  while ((1u << r) < n)
    ++r;
  return r;
}

uint64_t pack(uint32_t epoch, uint32_t any, uint32_t all) {
  return epoch | (static_cast<uint64_t>(any & 0xffff) << 32) |
         (static_cast<uint64_t>(all & 0xffff) << 48);
}

bool reached(uint64_t word, uint32_t epoch) {
  return static_cast<int32_t>(static_cast<uint32_t>(word) - epoch) >= 0;
}

// The futex word is the epoch half of the 64-bit flag.
std::atomic<uint32_t>* epoch_word(BarrierSlot& s) {
  return reinterpret_cast<std::atomic<uint32_t>*>(&s.word);
}

}  // namespace

std::size_t barrier_slot_count(uint32_t nranks) {
  return static_cast<std::size_t>(nranks) * rounds_for(nranks) * 2;
}

NodeBarrier::NodeBarrier(BarrierSlot* slots, uint32_t nranks, uint32_t me)
    : slots_(slots), n_(nranks), me_(me), rounds_(rounds_for(nranks)) {}

BarrierResult NodeBarrier::arrive_and_wait(uint16_t flags, progress::Idle idle) {
  cpu::mem_sync();  // expose everything this rank did before the barrier
  const uint32_t e = ++epoch_;
  const uint32_t parity = e & 1;
  uint32_t any = flags, all = flags;
  for (uint32_t k = 0; k < rounds_; ++k) {
    BarrierSlot& out = slot((me_ + (1u << k)) % n_, k, parity);
    out.word.store(pack(e, any, all), std::memory_order_seq_cst);
    if (out.sleeping.load(std::memory_order_seq_cst)) futex::wake_all(epoch_word(out));

    BarrierSlot& in = slot(me_, k, parity);
    uint64_t w = in.word.load(std::memory_order_acquire);
    if (!reached(w, e)) {
      // A rank waiting in a fence for a peer that still issues its epoch's operations spins as
      // the host's fence does: its yields, system calls, slowed the peer's copies on the other
      // CPU (likely this core's second hyperthread) by 2-5 %.
      progress::Backoff b(progress::Backoff::Waiting::kBusyUnlessThreads);
      while (!reached(w = in.word.load(std::memory_order_acquire), e)) {
        if (idle) idle();
        if (!b.sleeping()) {
          b.pause();
          continue;
        }
        in.sleeping.store(1, std::memory_order_seq_cst);
        w = in.word.load(std::memory_order_seq_cst);
        if (!reached(w, e)) b.pause_on(epoch_word(in), static_cast<uint32_t>(w));
        in.sleeping.store(0, std::memory_order_relaxed);
      }
    }
    any |= static_cast<uint32_t>(w >> 32) & 0xffff;
    all &= static_cast<uint32_t>(w >> 48) & 0xffff;
  }
  cpu::mem_sync();  // later accesses see everything the others did before the barrier
  return {any, all};
}

}  // namespace osprey::shm
