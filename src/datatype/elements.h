// Walks the start addresses of the basic elements that `count` elements of a datatype cover
// at an address, in type map order. A basic element may span blocks (a pair with a hole).
#pragma once

#include <cstddef>

#include "datatype/type_info.h"

namespace osprey::dt {

class ElementCursor {
 public:
  ElementCursor(const void* base, MPI_Count count, const TypeInfo& t)
      : base_(static_cast<char*>(const_cast<void*>(base))), count_(count), t_(t) {
    if (t.dense)
      left_dense_ = t.elem_size ? static_cast<std::size_t>(count) * t.size / t.elem_size : 0;
  }

  // The next element's first byte, or false at the end.
  bool next(char*& elem) {
    if (t_.dense) {
      if (left_dense_ == 0) return false;
      elem = base_ + t_.true_lb + static_cast<MPI_Aint>(index_++) * t_.elem_size;
      --left_dense_;
      return true;
    }
    std::size_t need = t_.elem_size;
    char* start = nullptr;
    while (need > 0) {
      if (elem_ >= count_ || t_.blocks.empty()) return false;
      const Block& b = t_.blocks[block_];
      if (!start) start = base_ + elem_ * t_.extent + b.off + static_cast<MPI_Aint>(in_block_);
      const std::size_t avail = static_cast<std::size_t>(b.len) - in_block_;
      const std::size_t take = avail < need ? avail : need;
      need -= take;
      in_block_ += take;
      if (in_block_ == static_cast<std::size_t>(b.len)) {
        in_block_ = 0;
        if (++block_ == t_.blocks.size()) {
          block_ = 0;
          ++elem_;
        }
      }
    }
    elem = start;
    return true;
  }

 private:
  char* base_;
  MPI_Count count_;
  const TypeInfo& t_;
  std::size_t left_dense_ = 0, index_ = 0;
  MPI_Count elem_ = 0;
  std::size_t block_ = 0, in_block_ = 0;
};

}  // namespace osprey::dt
