#include "util/log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace osprey::log {

void write(const char* fmt, ...) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "osprey[%d]: ", static_cast<int>(getpid()));
  va_list ap;
  va_start(ap, fmt);
  n += std::vsnprintf(buf + n, sizeof buf - static_cast<std::size_t>(n) - 1, fmt, ap);
  va_end(ap);
  if (n > static_cast<int>(sizeof buf) - 2) n = sizeof buf - 2;
  buf[n++] = '\n';
  ssize_t ignored = ::write(2, buf, static_cast<std::size_t>(n));
  (void)ignored;
}

}  // namespace osprey::log
