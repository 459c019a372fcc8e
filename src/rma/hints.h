// Window info hints osprey understands (MPI-3.1 11.2.1 plus osprey's own read-only keys).
#pragma once

#include <mpi.h>

#include "util/status.h"

#include <cstdint>

namespace osprey::rma {

struct Hints {
  bool no_locks = false;
  // accumulate_ordering: which same-origin orderings must hold (default all four).
  enum : uint8_t { kRar = 1, kRaw = 2, kWar = 4, kWaw = 8, kAllOrders = 15 };
  uint8_t ordering = kAllOrders;
  bool same_op = false;  // accumulate_ops=same_op (default same_op_no_op)
  bool same_size = false;
  bool same_disp_unit = false;
  bool alloc_shared_noncontig = false;

  // Reads the keys present in `info` over the current values (MPI_INFO_NULL: no change);
  // MPI_ERR_INFO for a handle the host does not know.
  Status read(MPI_Info info);
};

// Writes every hint as the program last set it (or its default), plus osprey_version and
// osprey_path, into a new info object.
void write_hints(const Hints& h, const char* path, MPI_Info* out);

}  // namespace osprey::rma
