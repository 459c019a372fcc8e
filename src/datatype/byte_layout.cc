#include "datatype/byte_layout.h"

#include <climits>
#include <vector>

#include "datatype/runs.h"

namespace osprey::dt {
namespace {

bool fits_int(int64_t v) {
  return v >= 0 && v <= INT_MAX;
}

// One strided block as a byte type whose first run starts at 0: a vector of runs and a vector
// of those, so the host walks the description rather than a list of every run.
MPI_Datatype block_type(const Block& b) {
  MPI_Datatype inner = MPI_BYTE, t;
  int len = static_cast<int>(b.len);
  if (b.n1 > 1) {
    PMPI_Type_create_hvector(static_cast<int>(b.n1), len, b.s1, MPI_BYTE, &inner);
    len = 1;
  }
  if (b.n2 == 1) {
    if (len == 1) return inner;
    PMPI_Type_contiguous(len, MPI_BYTE, &t);
    return t;
  }
  PMPI_Type_create_hvector(static_cast<int>(b.n2), len, b.s2, inner, &t);
  if (inner != MPI_BYTE) PMPI_Type_free(&inner);
  return t;
}

// Stretches one element's type to the datatype's extent for `count` elements, commits it and
// fills the layout addressed from `base`.
void finish(MPI_Datatype elem, const void* base, MPI_Count count, const TypeInfo& t,
            ByteLayout& l) {
  MPI_Datatype whole = elem;
  if (count > 1) {
    PMPI_Type_create_resized(elem, 0, t.extent, &whole);
    PMPI_Type_free(&elem);
  }
  PMPI_Type_commit(&whole);
  l.addr = const_cast<void*>(base);
  l.count = static_cast<int>(count);
  l.type = whole;
  l.owned = true;
}

// The layout from the strided blocks themselves, addressed from `base`. The host's cost is per
// type built (a few us for each), so blocks of few runs (an uneven indexed type) go as one
// list of runs, and blocks of many runs as an hvector each inside a struct. False (and
// nothing built) when a length or count does not fit an int.
bool strided_layout(const void* base, MPI_Count count, const TypeInfo& t, ByteLayout& l) {
  if (!fits_int(count) || !fits_int(static_cast<int64_t>(t.blocks.size())) || t.blocks.empty())
    return false;
  int64_t runs = 0;
  for (const Block& b : t.blocks) {
    if (!fits_int(b.len) || !fits_int(b.n1) || !fits_int(b.n2)) return false;
    runs += b.runs();
  }
  const std::size_t n = t.blocks.size();
  if (runs <= 64 || runs <= 4 * static_cast<int64_t>(n)) {
    std::vector<int> lens;
    std::vector<MPI_Aint> displs;
    lens.reserve(static_cast<std::size_t>(runs));
    displs.reserve(static_cast<std::size_t>(runs));
    BlockRuns w(t.blocks);
    MPI_Aint off, len;
    while (w.next(off, len)) {
      lens.push_back(static_cast<int>(len));
      displs.push_back(off);
    }
    MPI_Datatype elem;
    PMPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), displs.data(), MPI_BYTE,
                              &elem);
    finish(elem, base, count, t, l);
    return true;
  }
  std::vector<MPI_Datatype> types(n);
  std::vector<MPI_Aint> displs(n);
  std::vector<int> ones(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    types[i] = block_type(t.blocks[i]);
    displs[i] = t.blocks[i].off;
  }
  if (n == 1 && count == 1 && types[0] != MPI_BYTE) {  // one block: its own type, no struct
    finish(types[0], static_cast<const char*>(base) + t.blocks[0].off, count, t, l);
    return true;
  }
  MPI_Datatype elem;
  PMPI_Type_create_struct(static_cast<int>(n), ones.data(), displs.data(), types.data(), &elem);
  for (MPI_Datatype& x : types)
    if (x != MPI_BYTE) PMPI_Type_free(&x);
  finish(elem, base, count, t, l);
  return true;
}

// Runs of bytes at absolute addresses, as one element of a type used with MPI_BOTTOM.
ByteLayout runs_layout(const std::vector<int>& lens, const std::vector<MPI_Aint>& displs) {
  ByteLayout l;
  PMPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), displs.data(), MPI_BYTE,
                            &l.type);
  PMPI_Type_commit(&l.type);
  l.addr = MPI_BOTTOM;
  l.count = 1;
  l.owned = true;
  return l;
}

}  // namespace

ByteLayout byte_layout(const void* base, MPI_Count count, const TypeInfo& t) {
  ByteLayout l;
  const std::size_t bytes = data_bytes(count, t);
  if (t.dense && bytes <= static_cast<std::size_t>(INT_MAX)) {
    l.addr = static_cast<char*>(const_cast<void*>(base)) + t.true_lb;
    l.count = static_cast<int>(bytes);
    return l;
  }
  if (!t.dense && strided_layout(base, count, t, l)) return l;
  // Past int counts: runs addressed from MPI_BOTTOM, each at most 1 GiB so lengths fit an int.
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
  return runs_layout(lens, displs);
}

std::vector<ByteLayout> byte_layout_pieces(const void* base, MPI_Count count, const TypeInfo& t,
                                           std::size_t piece, std::size_t skip) {
  std::vector<ByteLayout> out;
  if (piece == 0) return {byte_layout(base, count, t)};  // (never asked with a skip)
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  char* first = nullptr;
  const char* end = nullptr;  // of the last run taken
  std::size_t have = 0;
  auto cut = [&] {
    if (lens.size() == 1) {
      ByteLayout l;
      l.addr = first;
      l.count = lens[0];
      out.push_back(l);
    } else {
      out.push_back(runs_layout(lens, displs));
    }
    lens.clear();
    displs.clear();
    have = 0;
  };
  auto take = [&](char* p, std::size_t n) {
    const std::size_t skipped = n < skip ? n : skip;
    p += skipped;
    n -= skipped;
    skip -= skipped;
    while (n > 0) {
      const std::size_t k = n < piece - have ? n : piece - have;
      if (!lens.empty() && p == end) {
        lens.back() += static_cast<int>(k);
      } else {
        MPI_Aint a;
        PMPI_Get_address(p, &a);
        if (lens.empty()) first = p;
        displs.push_back(a);
        lens.push_back(static_cast<int>(k));
      }
      end = p + k;
      have += k;
      p += k;
      n -= k;
      if (have == piece) cut();
    }
  };
  if (t.dense) {
    take(static_cast<char*>(const_cast<void*>(base)) + t.true_lb, data_bytes(count, t));
  } else {
    RunCursor c(base, count, t);
    char* p;
    std::size_t n;
    while (c.next(p, n))
      take(p, n);
  }
  if (have) cut();
  return out;
}

void release(ByteLayout& l) {
  if (l.owned) PMPI_Type_free(&l.type);
  l.owned = false;
  l.type = MPI_BYTE;
}

}  // namespace osprey::dt
