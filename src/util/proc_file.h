// Reads a small kernel file (/proc, /sys) whole, into the caller's buffer: no allocation, as
// some of them are read from inside waits.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>

namespace osprey {

// Bytes read (at most cap - 1, followed by a NUL), or 0 if the file cannot be read.
inline std::size_t read_small_file(const char* path, char* buf, std::size_t cap) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, cap - 1);
  close(fd);
  const std::size_t got = n > 0 ? static_cast<std::size_t>(n) : 0;
  buf[got] = 0;
  return got;
}

}  // namespace osprey
