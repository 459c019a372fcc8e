#include "rma/fence.h"

#include "rma/window.h"
#include "transport/shm/node_barrier.h"
#include "util/cpu.h"

namespace osprey::rma {
namespace {

constexpr int kFenceAsserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
// Barrier flags beside the assertion flags of fence_collective_bits: a rank staged
// operations this epoch (acc_stage.h); a rank could not apply what was staged for it (every
// rank then reports it, the origins' fences too).
constexpr uint16_t kStagedBit = 4;
constexpr uint16_t kApplyFailedBit = 8;

}  // namespace

// On an oversubscribed node (the same answer on every rank of it), the central barrier: each
// waiter is woken once per fence instead of once per dissemination round. It sleeps only where
// no message endpoint exists; elsewhere it runs progress between yields, as requests may come
// that only this process serves.
shm::BarrierResult Window::node_barrier(uint16_t bits) {
  if (!ci_->oversubscribed()) return barrier_.arrive_and_wait(bits, progress::poll);
  return central_.arrive_and_wait(bits, progress::has_pollers() ? progress::poll : nullptr);
}

Status FenceEpoch::fence(int assert) {
  if (assert & ~kFenceAsserts)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_fence");
  if ((w_.access_ != Access::kNone && w_.access_ != Access::kFence) || w_.pscw_.exposed())
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_fence inside a lock or PSCW epoch");
  if ((assert& MPI_MODE_NOPRECEDE) && has_ops())
    return Err(MPI_ERR_RMA_SYNC,
               "osprey: MPI_MODE_NOPRECEDE given but RMA calls were made since the last fence");

  // Operations waiting in the cross-memory attach queues complete before the epoch ends; an
  // error is reported after the barrier, which the other ranks are waiting in.
  const Status queued = w_.cma_queue_.drain_all();
  Status s = kOk;
  if (w_.uses_am_) {
    cpu::mem_sync();
    s = w_.am_fence(assert);
    cpu::mem_sync();
  } else {
    const uint16_t asserts = fence_collective_bits(assert);
    const shm::BarrierResult r = w_.node_barrier(asserts | (w_.stage_.staged() ? kStagedBit : 0));
    if ((r.any ^ r.all) & ~uint32_t{kStagedBit})
      s = Err(MPI_ERR_ASSERT,
              "osprey: ranks disagree on MPI_MODE_NOPRECEDE/NOSUCCEED in MPI_Win_fence");
    if (r.any & kStagedBit) {
      // Every rank applies what was staged for it before any rank leaves the fence (a rank
      // may read or write another's memory in the next epoch).
      // Old values left for this rank are copied out before the second barrier, after which
      // the areas take the next epoch's entries.
      const Status applied = w_.stage_.apply_mine();
      if (w_.stage_.fetches()) w_.stage_.collect();
      w_.stage_.epoch_ended();
      const shm::BarrierResult r2 = w_.node_barrier(applied.ok() ? 0 : kApplyFailedBit);
      if (s.ok() && !applied.ok()) s = applied;
      if (s.ok() && (r2.any & kApplyFailedBit))
        s = Err(MPI_ERR_RMA_RANGE,
                "osprey: a target could not read an accumulate's data in MPI_Win_fence");
    } else {
      w_.stage_.epoch_ended();  // puts and gets counted toward staging that none took
    }
  }
  ops_.store(false, std::memory_order_relaxed);
  w_.access_.store((assert& MPI_MODE_NOSUCCEED) ? Access::kNone : Access::kFence,
                   std::memory_order_release);
  return queued.ok() ? s : queued;
}

}  // namespace osprey::rma
