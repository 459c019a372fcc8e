// Debug logging to stderr, switched on by OSPREY_DEBUG.
#pragma once

#include "util/config.h"

namespace osprey::log {

void write(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace osprey::log

#define OSPREY_LOG(level, ...)                                    \
  do {                                                            \
    if (__builtin_expect(::osprey::config().debug >= (level), 0)) \
      ::osprey::log::write(__VA_ARGS__);                          \
  } while (0)
