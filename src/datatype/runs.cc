#include "datatype/runs.h"

#include <algorithm>
#include <cstring>

namespace osprey::dt {

RunCursor::RunCursor(const void* base, MPI_Count count, const TypeInfo& t)
    : base_(static_cast<char*>(const_cast<void*>(base))), count_(count), t_(t) {}

bool RunCursor::raw_next(char*& p, std::size_t& len) {
  if (t_.dense) {
    if (elem_ != 0 || count_ == 0 || t_.size == 0) return false;
    elem_ = count_;
    p = base_ + t_.true_lb;
    len = data_bytes(count_, t_);
    return true;
  }
  while (elem_ < count_) {
    MPI_Aint off, n;
    if (runs_.next(off, n)) {
      p = base_ + elem_ * t_.extent + off;
      len = static_cast<std::size_t>(n);
      return true;
    }
    runs_.restart();
    ++elem_;
  }
  return false;
}

bool RunCursor::next(char*& p, std::size_t& len) {
  char* q;
  std::size_t n;
  while (raw_next(q, n)) {
    if (n == 0) continue;
    if (have_pend_ && pend_p_ + pend_len_ == q) {
      pend_len_ += n;
      continue;
    }
    if (have_pend_) {
      p = pend_p_;
      len = pend_len_;
      pend_p_ = q;
      pend_len_ = n;
      return true;
    }
    have_pend_ = true;
    pend_p_ = q;
    pend_len_ = n;
  }
  if (!have_pend_) return false;
  have_pend_ = false;
  p = pend_p_;
  len = pend_len_;
  return true;
}

void copy(void* dst, MPI_Count dcount, const TypeInfo& dt, const void* src, MPI_Count scount,
          const TypeInfo& st) {
  if (dt.dense && st.dense) {
    const std::size_t n = data_bytes(scount, st);
    if (n)
      std::memmove(static_cast<char*>(dst) + dt.true_lb, static_cast<const char*>(src) + st.true_lb,
                   n);
    return;
  }
  RunCursor d(dst, dcount, dt), s(src, scount, st);
  char *dp = nullptr, *sp = nullptr;
  std::size_t dl = 0, sl = 0;
  for (;;) {
    if (dl == 0 && !d.next(dp, dl)) return;
    if (sl == 0 && !s.next(sp, sl)) return;
    const std::size_t n = std::min(dl, sl);
    std::memmove(dp, sp, n);
    dp += n;
    sp += n;
    dl -= n;
    sl -= n;
  }
}

void pack(void* out, const void* src, MPI_Count count, const TypeInfo& t) {
  RunCursor s(src, count, t);
  char* o = static_cast<char*>(out);
  char* p;
  std::size_t n;
  while (s.next(p, n)) {
    std::memcpy(o, p, n);
    o += n;
  }
}

void unpack(void* dst, MPI_Count count, const TypeInfo& t, const void* in) {
  RunCursor d(dst, count, t);
  const char* i = static_cast<const char*>(in);
  char* p;
  std::size_t n;
  while (d.next(p, n)) {
    std::memcpy(p, i, n);
    i += n;
  }
}

}  // namespace osprey::dt
