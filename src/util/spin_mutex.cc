#include "util/spin_mutex.h"

#include <sched.h>

#include "util/cpu.h"

namespace osprey {

void SpinMutex::lock_contended() {
  int spins = 0;
  do {
    while (busy_.load(std::memory_order_relaxed)) {
      if (spins < 64) {
        cpu::relax();
        ++spins;
      } else {
        sched_yield();
      }
    }
  } while (busy_.exchange(true, std::memory_order_acquire));
}

}  // namespace osprey
