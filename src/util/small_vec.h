// A vector of trivially copyable values that keeps its first N in place and goes to the heap
// only beyond them. Decoding a fresh datatype builds a few short lists per call (a
// constructor's arguments, the blocks of each level); with std::vector each was an allocation
// and a free, which cost more than the decoding itself.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace osprey {

template <class T, std::size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "values are moved with memcpy");

 public:
  SmallVec() {}  // leaves the places unconstructed (see inline_)
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T& back() { return p_[n_ - 1]; }

  void clear() { n_ = 0; }
  void push_back(const T& v) {
    const T copy = v;  // v may be one of ours, which grow() frees
    if (n_ == cap_) grow(n_ * 2);
    p_[n_++] = copy;
  }
  // New values are zero (value-initialized).
  void resize(std::size_t n) {
    if (n > cap_) grow(n);
    for (std::size_t i = n_; i < n; ++i)
      p_[i] = T{};
    n_ = n;
  }
  void assign(const T* first, const T* last) {
    const auto n = static_cast<std::size_t>(last - first);
    n_ = 0;
    if (n > cap_) grow(n);
    if (n) std::memmove(p_, first, n * sizeof(T));
    n_ = n;
  }

 private:
  void grow(std::size_t want) {
    const std::size_t cap = want > N ? want : N;
    auto heap = std::make_unique<T[]>(cap);
    if (n_) std::memcpy(heap.get(), p_, n_ * sizeof(T));
    heap_ = std::move(heap);
    p_ = heap_.get();
    cap_ = cap;
  }
  void take(SmallVec& o) {
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      p_ = heap_.get();
      cap_ = o.cap_;
      n_ = o.n_;
    } else {
      heap_.reset();
      p_ = inline_;
      cap_ = N;
      n_ = o.n_;
      if (n_) std::memcpy(inline_, o.inline_, n_ * sizeof(T));
    }
    o.p_ = o.inline_;
    o.cap_ = N;
    o.n_ = 0;
  }

  // A union member: nothing is constructed in it until stored (a Block has default member
  // initializers, and a fresh type's decode made a few lists of four per level).
  union {
    T inline_[N];
  };
  std::unique_ptr<T[]> heap_;
  T* p_ = inline_;
  std::size_t n_ = 0, cap_ = N;
};

}  // namespace osprey
