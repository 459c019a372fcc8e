// MPI datatypes of plain bytes describing where a layout's data lives, so that a payload can be
// sent from or received into user memory or window memory directly (no staging copy). Both
// sides use bytes, so the type signatures of sender and receiver always match.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "datatype/type_info.h"

namespace osprey::dt {

struct ByteLayout {
  void* addr = nullptr;  // buffer argument for the MPI call
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  bool owned = false;  // type must be freed after the transfer
};

ByteLayout byte_layout(const void* base, MPI_Count count, const TypeInfo& t);
// The same bytes but the first `skip`, cut into layouts of `piece` bytes each in type map
// order (the last one shorter), for a message sent as several: each side cuts its own layout
// at the same offsets.
std::vector<ByteLayout> byte_layout_pieces(const void* base, MPI_Count count, const TypeInfo& t,
                                           std::size_t piece, std::size_t skip = 0);
void release(ByteLayout& l);

}  // namespace osprey::dt
