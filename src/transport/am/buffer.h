// The byte buffers messages are built and received in: a vector whose growth leaves the new
// bytes uninitialized, since every byte is written (packed, copied, received) right after. A
// plain std::vector<char> would clear them first, one more pass over every reply and batch.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace osprey::am {

template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: left as it is for char
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

using Buffer = std::vector<char, NoInitAllocator<char>>;

}  // namespace osprey::am
