#include "rma/remote_info.h"

#include "progress/host_wait.h"

namespace osprey::rma {

void RemoteInfo::init(MPI_Comm comm, bool uniform, int64_t size, int64_t disp_unit) {
  uniform_ = uniform;
  size_ = size;
  disp_unit_ = disp_unit;
  if (uniform) return;
  int n = 0;
  PMPI_Comm_size(comm, &n);
  std::vector<int64_t> all(2 * static_cast<size_t>(n));
  int64_t mine[2] = {size, disp_unit};
  MPI_Request req;
  PMPI_Iallgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm, &req);
  progress::wait_host(&req, progress::poll);
  sizes_.resize(static_cast<size_t>(n));
  units_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    sizes_[static_cast<size_t>(i)] = all[2 * static_cast<size_t>(i)];
    units_[static_cast<size_t>(i)] = all[2 * static_cast<size_t>(i) + 1];
  }
}

}  // namespace osprey::rma
