// The monotonic clock in nanoseconds, for waits that measure how long they have waited.
#pragma once

#include <time.h>

#include <cstdint>

namespace osprey {

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace osprey
