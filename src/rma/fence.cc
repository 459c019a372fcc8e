#include "rma/fence.h"

#include "rma/window.h"
#include "transport/shm/node_barrier.h"
#include "util/cpu.h"

namespace osprey::rma {
namespace {

constexpr int kFenceAsserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
// Assertions that every rank must give together (MPI-3.1 11.5.5); they travel as barrier flags
// shifted down by 8 bits to fit the barrier's 16.
constexpr uint32_t kCollectiveAsserts = MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
static_assert((kCollectiveAsserts >> 8) <= 0xffff);

}  // namespace

Status FenceEpoch::fence(int assert) {
  if (assert & ~kFenceAsserts)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_fence");
  if ((w_.access_ != Access::kNone && w_.access_ != Access::kFence) || w_.pscw_.exposed())
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_fence inside a lock or PSCW epoch");
  if ((assert& MPI_MODE_NOPRECEDE) && has_ops())
    return Err(MPI_ERR_RMA_SYNC,
               "osprey: MPI_MODE_NOPRECEDE given but RMA calls were made since the last fence");

  Status s = kOk;
  if (w_.uses_am_) {
    cpu::mem_sync();
    s = w_.am_fence(assert);
    cpu::mem_sync();
  } else {
    const uint32_t bits = static_cast<uint32_t>(assert) & kCollectiveAsserts;
    const shm::BarrierResult r =
        w_.barrier_.arrive_and_wait(static_cast<uint16_t>(bits >> 8), progress::poll);
    if (r.any != r.all)
      s = Err(MPI_ERR_ASSERT,
              "osprey: ranks disagree on MPI_MODE_NOPRECEDE/NOSUCCEED in MPI_Win_fence");
  }
  ops_.store(false, std::memory_order_relaxed);
  w_.access_.store((assert& MPI_MODE_NOSUCCEED) ? Access::kNone : Access::kFence,
                   std::memory_order_release);
  return s;
}

}  // namespace osprey::rma
