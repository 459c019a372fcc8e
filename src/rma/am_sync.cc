// Active-target synchronization on the message path.
//
// Fence: operations carry the fence epoch they belong to, and a target holds back requests of
// an epoch it has not entered, so a fence under MPI_MODE_NOPRECEDE sends nothing at all; any
// other fence completes this rank's operations (flush) and meets everyone in a dissemination
// barrier of fence requests, which also combines the assertion flags.
#include "progress/backoff.h"
#include "rma/fence.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"

namespace osprey::rma {

Status Window::am_barrier(uint32_t flags, uint32_t* any_out, uint32_t* all_out) {
  uint32_t any = flags & 0xffff, all = flags & 0xffff;
  AmGuard g(am_->mu);
  const uint32_t e = am_->fence_epoch;
  for (uint32_t k = 0; (1u << k) < static_cast<uint32_t>(nranks_); ++k) {
    const int dest = static_cast<int>((static_cast<uint32_t>(rank_) + (1u << k)) % nranks_);
    am::Request r{};
    r.kind = am::Kind::kFence;
    r.window = id_;
    r.epoch = e;
    r.where = k;
    r.bytes = any | (all << 16);
    am_send_bare(g, dest, r);
    const uint64_t key = AmState::fence_key(e, k);
    progress::Backoff b;
    while (am_->fence_signals.count(key) == 0)
      am_pause(g, b);
    const auto it = am_->fence_signals.find(key);
    any |= it->second.any;
    all &= it->second.all;
    am_->fence_signals.erase(it);  // one sender per round and barrier
  }
  *any_out = any;
  *all_out = all;
  return kOk;
}

Status Window::am_fence(int assert) {
  const uint32_t bits = fence_collective_bits(assert);
  if (assert & MPI_MODE_NOPRECEDE) {
    // Nothing to complete and nothing to wait for: the targets hold back this epoch's
    // requests until they enter it. Node peers reached directly still need the node barrier.
    {
      AmGuard g(am_->mu);
      ++am_->fence_epoch;
    }
    if (!force_am_ && ci_->node_size() > 1) node_barrier(static_cast<uint16_t>(bits));
    return kOk;
  }
  // An error a target reported is returned once the fence is complete: leaving early would
  // strand the other ranks in the barrier.
  const Status flushed = am_flush_all(false);
  {
    AmGuard g(am_->mu);
    ++am_->fence_epoch;  // from here on this rank takes requests of the next epoch
  }
  uint32_t any = 0, all = 0;
  OSPREY_TRY(am_barrier(bits, &any, &all));
  if (any != all)
    return Err(MPI_ERR_ASSERT,
               "osprey: ranks disagree on MPI_MODE_NOPRECEDE/NOSUCCEED in MPI_Win_fence");
  return flushed;
}

}  // namespace osprey::rma
