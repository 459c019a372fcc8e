// Sizes and displacement units of targets on other nodes, for range checks at the origin:
// one value when every rank passed the same (the usual case), a table otherwise.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace osprey::rma {

class RemoteInfo {
 public:
  // Collective over comm when the values differ between ranks.
  void init(MPI_Comm comm, bool uniform, int64_t size, int64_t disp_unit);
  int64_t size(int rank) const { return uniform_ ? size_ : sizes_[static_cast<size_t>(rank)]; }
  int64_t disp_unit(int rank) const {
    return uniform_ ? disp_unit_ : units_[static_cast<size_t>(rank)];
  }

 private:
  bool uniform_ = true;
  int64_t size_ = 0, disp_unit_ = 1;
  std::vector<int64_t> sizes_, units_;
};

}  // namespace osprey::rma
