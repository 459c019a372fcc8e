// Iterates over the contiguous byte runs that `count` elements of a datatype cover at an
// address, merging runs that touch; and copies between two such layouts.
#pragma once

#include <cstddef>

#include "datatype/type_info.h"

namespace osprey::dt {

class RunCursor {
 public:
  RunCursor(const void* base, MPI_Count count, const TypeInfo& t);
  // The next run, or false at the end.
  bool next(char*& p, std::size_t& len);

 private:
  bool raw_next(char*& p, std::size_t& len);
  char* base_;
  MPI_Count count_;
  const TypeInfo& t_;
  MPI_Count elem_ = 0;
  BlockRuns runs_{t_.blocks};
  char* pend_p_ = nullptr;
  std::size_t pend_len_ = 0;
  bool have_pend_ = false;
};

// Whether `count` elements of t can be addressed at all: their data bytes and the memory they
// span (count - 1 extents plus one true extent) fit in 64-bit signed arithmetic. Counts past it
// get MPI_ERR_COUNT before anything is computed from them.
inline bool count_fits(MPI_Count count, const TypeInfo& t) {
  if (count <= 1) return count >= 0;  // one element's span and bytes are its type's own
  const __int128 span = static_cast<__int128>(count - 1) * (t.extent < 0 ? -t.extent : t.extent) +
                        (t.true_extent < 0 ? -t.true_extent : t.true_extent);
  const __int128 bytes = static_cast<__int128>(count) * t.size;
  return span <= INT64_MAX && bytes <= INT64_MAX;
}

// The bytes `count` (> 0) elements of t touch, from their buffer address: element i covers
// [i*extent + true_lb, i*extent + true_lb + true_extent). False if that does not fit in 64-bit
// signed arithmetic (a type whose data starts near the end of the address range).
inline bool element_span(MPI_Count count, const TypeInfo& t, int64_t* lo, int64_t* hi) {
  int64_t last, end;
  return !__builtin_mul_overflow(count - 1, t.extent, &last) &&
         !__builtin_add_overflow(last < 0 ? last : 0, t.true_lb, lo) &&
         !__builtin_add_overflow(t.true_lb, t.true_extent, &end) &&
         !__builtin_add_overflow(last < 0 ? 0 : last, end, hi);
}

// Total data bytes of count elements (count_fits).
inline std::size_t data_bytes(MPI_Count count, const TypeInfo& t) {
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size);
}

// Copies the data of (src, scount, st) into (dst, dcount, dt); both carry the same bytes.
void copy(void* dst, MPI_Count dcount, const TypeInfo& dt, const void* src, MPI_Count scount,
          const TypeInfo& st);

// Contiguous packing of a layout, and the reverse.
void pack(void* out, const void* src, MPI_Count count, const TypeInfo& t);
void unpack(void* dst, MPI_Count count, const TypeInfo& t, const void* in);
// The same for the layout's first n data bytes only (n at most its data bytes).
void pack_head(void* out, const void* src, MPI_Count count, const TypeInfo& t, std::size_t n);
void unpack_head(void* dst, MPI_Count count, const TypeInfo& t, const void* in, std::size_t n);

}  // namespace osprey::dt
