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
      if (run_left_ == 0 && !next_run()) return false;
      if (!start) start = run_;
      const std::size_t take = run_left_ < need ? run_left_ : need;
      need -= take;
      run_ += take;
      run_left_ -= take;
    }
    elem = start;
    return true;
  }

 private:
  // Moves to the next run of data bytes; false after the last element's last run.
  bool next_run() {
    MPI_Aint off, len;
    for (;;) {
      if (elem_ >= count_ || t_.blocks.empty()) return false;
      if (runs_.next(off, len)) break;
      runs_.restart();
      ++elem_;
    }
    run_ = base_ + elem_ * t_.extent + off;
    run_left_ = static_cast<std::size_t>(len);
    return true;
  }

  char* base_;
  MPI_Count count_;
  const TypeInfo& t_;
  std::size_t left_dense_ = 0, index_ = 0;
  MPI_Count elem_ = 0;
  BlockRuns runs_{t_.blocks};
  char* run_ = nullptr;
  std::size_t run_left_ = 0;
};

}  // namespace osprey::dt
