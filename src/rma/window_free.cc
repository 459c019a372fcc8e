// MPI_Win_free: refuses inside an epoch; otherwise waits until every rank is done with the
// window (node barrier, or a host agreement across nodes) before the memory goes away.
#include "progress/backoff.h"
#include "rma/agree.h"
#include "rma/registry.h"
#include "rma/runtime.h"
#include "rma/window.h"

namespace osprey::rma {

Status Window::free() {
  if (access_ == Access::kLock || access_ == Access::kLockAll || access_ == Access::kPscw)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_free inside an access epoch");
  if (pscw_.exposed())
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_free inside an exposure (post) epoch");
  if (access_ == Access::kFence && fence_.has_ops())
    return Err(MPI_ERR_RMA_SYNC,
               "osprey: MPI_Win_free with RMA calls not completed by a closing fence");
  if (!runtime_finalized()) {
    if (ci_->all_on_node()) {
      node_barrier(0);
    } else {
      int64_t v = 0;
      agree_max(ci_->priv(), &v, 1);
    }
  }
  served_.stop();  // every peer is done with the window (served_ops.h)
  // Replies still being sent from this window's memory point into its state: let them end.
  if (am_) progress::wait_until([&] { return am_sends_done(); });
  ci_->remove_window(id_);
  // No epoch from here on: the calls' fast paths, which skip the freed check, see none.
  access_.store(Access::kNone, std::memory_order_release);
  freed_ = true;
  // Every peer is done with it: moved pages become the program's private memory again, and
  // pages of this window that stayed private may move for other windows.
  release_user_memory();
  // The memory goes now; the group and the communicator's info stay until the window object
  // goes, after the host ran the attribute delete callbacks (which may ask for them).
  seg_.release();
  return kOk;
}

}  // namespace osprey::rma
