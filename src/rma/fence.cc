// MPI_Win_fence: a node barrier on the window segment when every rank shares the node (no
// messages), else a nonblocking host allreduce that also checks the assertions agree.
#include "rma/agree.h"
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

Status Window::fence(int assert) {
  if (assert & ~kFenceAsserts)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_fence");
  if ((access_ != Access::kNone && access_ != Access::kFence) || exposure_)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_fence inside a lock or PSCW epoch");
  if ((assert& MPI_MODE_NOPRECEDE) && fence_ops_)
    return Err(MPI_ERR_RMA_SYNC,
               "osprey: MPI_MODE_NOPRECEDE given but RMA calls were made since the last fence");

  const uint32_t bits = static_cast<uint32_t>(assert) & kCollectiveAsserts;
  uint32_t any = 0, all = 0;
  if (uses_am_) {
    cpu::mem_sync();
    const Status s = am_fence(assert);
    cpu::mem_sync();
    fence_ops_ = false;
    access_ = (assert& MPI_MODE_NOSUCCEED) ? Access::kNone : Access::kFence;
    return s;
  }
  if (ci_->all_on_node()) {
    const shm::BarrierResult r = barrier_.arrive_and_wait(static_cast<uint16_t>(bits >> 8));
    any = r.any << 8;
    all = r.all << 8;
  } else {
    cpu::mem_sync();
    // A max over 0/1 flags is an OR; over the negated flags it gives the AND.
    const bool np = bits & MPI_MODE_NOPRECEDE, ns = bits & MPI_MODE_NOSUCCEED;
    int64_t v[4] = {np, ns, !np, !ns};
    agree_max(ci_->priv(), v, 4);
    any = (v[0] ? MPI_MODE_NOPRECEDE : 0) | (v[1] ? MPI_MODE_NOSUCCEED : 0);
    all = (v[2] ? 0 : MPI_MODE_NOPRECEDE) | (v[3] ? 0 : MPI_MODE_NOSUCCEED);
    cpu::mem_sync();
  }
  fence_ops_ = false;
  access_ = (assert& MPI_MODE_NOSUCCEED) ? Access::kNone : Access::kFence;
  if (any != all)
    return Err(MPI_ERR_ASSERT,
               "osprey: ranks disagree on MPI_MODE_NOPRECEDE/NOSUCCEED in MPI_Win_fence");
  return kOk;
}

}  // namespace osprey::rma
