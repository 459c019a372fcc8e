#include "datatype/byte_layout.h"

#include <climits>
#include <vector>

#include "datatype/runs.h"

namespace osprey::dt {

ByteLayout byte_layout(const void* base, MPI_Count count, const TypeInfo& t) {
  ByteLayout l;
  const std::size_t bytes = data_bytes(count, t);
  if (t.dense && bytes <= static_cast<std::size_t>(INT_MAX)) {
    l.addr = static_cast<char*>(const_cast<void*>(base)) + t.true_lb;
    l.count = static_cast<int>(bytes);
    return l;
  }
  // Runs addressed from MPI_BOTTOM, each at most 1 GiB so lengths fit an int.
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  RunCursor c(base, count, t);
  char* p;
  std::size_t n;
  constexpr std::size_t kMaxRun = std::size_t{1} << 30;
  while (c.next(p, n)) {
    while (n > 0) {
      const std::size_t take = n < kMaxRun ? n : kMaxRun;
      MPI_Aint a;
      PMPI_Get_address(p, &a);
      displs.push_back(a);
      lens.push_back(static_cast<int>(take));
      p += take;
      n -= take;
    }
  }
  PMPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), displs.data(), MPI_BYTE,
                            &l.type);
  PMPI_Type_commit(&l.type);
  l.addr = MPI_BOTTOM;
  l.count = 1;
  l.owned = true;
  return l;
}

void release(ByteLayout& l) {
  if (l.owned) PMPI_Type_free(&l.type);
  l.owned = false;
  l.type = MPI_BYTE;
}

}  // namespace osprey::dt
