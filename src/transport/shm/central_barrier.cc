#include "transport/shm/central_barrier.h"

#include "progress/backoff.h"

namespace osprey::shm {

BarrierResult CentralBarrier::arrive_and_wait(uint16_t flags, progress::Idle idle,
                                              progress::Idle host_poke) {
  cpu::mem_sync();  // expose everything this rank did before the barrier
  const uint32_t e = ++epoch_;
  const uint32_t p = e & 1;
  w_->any[p].fetch_or(flags, std::memory_order_relaxed);
  w_->none[p].fetch_or(~static_cast<uint32_t>(flags) & 0xffff, std::memory_order_relaxed);
  // acq_rel: the last arrival's increment reads every earlier one, so it has seen all their
  // prior writes before it opens the barrier with a release store.
  if (w_->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
    // Reset before opening: no rank can arrive at the next barrier before it sees this one
    // open. The other parity's flags belong to the barrier before, whose results everyone
    // read before arriving here; the next barrier uses them.
    w_->any[p ^ 1].store(0, std::memory_order_relaxed);
    w_->none[p ^ 1].store(0, std::memory_order_relaxed);
    w_->arrived.store(0, std::memory_order_relaxed);
    w_->opened.store(e, std::memory_order_release);
    progress::ring(w_->bell);
  } else {
    auto open = [&] { return w_->opened.load(std::memory_order_acquire) == e; };
    // MPI_Barrier (host_poke) stands in for the host's barrier, which busy-polls.
    progress::Backoff b(host_poke ? progress::Backoff::Waiting::kBusy
                                  : progress::Backoff::Waiting::kPolite);
    for (uint32_t round = 0; !open(); ++round) {
      if (!idle && host_poke) {
        // A poke costs about what the last arrival takes to come (0.1 us): not every round
        // while spinning and yielding, but between any two sleeps.
        if (round % kRoundsPerPoke == 0 || b.sleeping()) host_poke();
        b.pause_on(w_->bell, open, kPokeSleepNs);
      } else if (!idle) {
        b.pause_on(w_->bell, open);
      } else if (idle()) {
        b.reset();
      } else {
        b.pause();
      }
    }
  }
  const BarrierResult r{w_->any[p].load(std::memory_order_relaxed),
                        ~w_->none[p].load(std::memory_order_relaxed) & 0xffff};
  cpu::mem_sync();  // later accesses see everything the others did before the barrier
  return r;
}

}  // namespace osprey::shm
