// MPI handles are ints in MPICH and pointers in Open MPI; both become a 64-bit map key.
#pragma once

#include <cstdint>
#include <type_traits>

namespace osprey {

template <class H>
inline uint64_t handle_key(H h) {
  if constexpr (std::is_pointer_v<H>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
  } else {
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<H>>(h));
  }
}

}  // namespace osprey
