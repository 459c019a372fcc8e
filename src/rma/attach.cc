// Dynamic windows: each rank keeps its attached regions in its attach table (shm/attach_table.h)
// so that node peers can check an access before touching the memory, and so can the rank
// itself when a request arrives on the message path.
#include "rma/window.h"
#include "transport/shm/user_memory.h"

namespace osprey::rma {

Status Window::attach(void* base, MPI_Aint size) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_attach needs a dynamic window");
  if (size < 0) return Err(MPI_ERR_SIZE, "osprey: negative size to attach");
  const uint64_t at = reinterpret_cast<uint64_t>(base), len = static_cast<uint64_t>(size);
  OSPREY_TRY(attach_.insert(at, len));
  shm::user_memory::expose(at, len);
  return kOk;
}

Status Window::detach(const void* base) {
  if (flavor_ != Flavor::kDynamic)
    return Err(MPI_ERR_RMA_FLAVOR, "osprey: MPI_Win_detach needs a dynamic window");
  uint64_t len = 0;
  if (!attach_.erase(reinterpret_cast<uint64_t>(base), &len))
    return Err(MPI_ERR_ARG, "osprey: MPI_Win_detach of memory that is not attached");
  shm::user_memory::unexpose(reinterpret_cast<uint64_t>(base), len);
  return kOk;
}

Status Window::check_dynamic_range(const TargetView& t, uint64_t lo, uint64_t hi) const {
  bool inside = false;
  OSPREY_TRY(attach_.covers(static_cast<uint32_t>(t.local), lo, hi, &inside));
  if (!inside) return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
  return kOk;
}

}  // namespace osprey::rma
