// A mutex for short sections that never wait on anything else (a table's insert or erase, a
// key's comparison). Taking a free one is one exchange and releasing it one store; a std::mutex
// is two calls and two locked instructions, a tenth of osprey's own work on a put with a type
// built for it (the type cache's insert at the put and erase at MPI_Type_free).
#pragma once

#include <atomic>

namespace osprey {

class SpinMutex {
 public:
  void lock() {
    if (busy_.exchange(true, std::memory_order_acquire)) lock_contended();
  }
  void unlock() { busy_.store(false, std::memory_order_release); }

 private:
  // Spins a little, then yields the CPU: on a node with more threads than CPUs the holder may
  // be the one waiting for it.
  void lock_contended();

  std::atomic<bool> busy_{false};
};

}  // namespace osprey
