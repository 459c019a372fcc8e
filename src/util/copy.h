// Copies of window data between a rank's buffers and node memory. glibc's memcpy moves 2 KiB
// to about 1 MiB with `rep movsb`, which on this machine's AMD cores runs at 3.5 GB/s when the
// source and destination differ in their address modulo 16 and at 6-42 GB/s (against 11-50)
// when they differ modulo 64, as a malloc'd buffer (16 bytes into a page) and a window do: so
// that range goes through a loop of 32-byte loads and aligned stores, at 46-57 GB/s from 4 to
// 64 KiB whatever the two addresses (docs/NOTES.md, "Copies that glibc runs with rep movsb").
#pragma once

#include <cstddef>
#include <cstring>

namespace osprey::cpu {

// Where the loop takes over from memcpy, and where it gives the copy back: from 1 MiB glibc
// runs its own vector loop here (its `rep movsb` ends at the L2 size on AMD), 4-20 % faster
// than this one at 1-4 MiB.
constexpr std::size_t kCopyLoopMin = 2048;
constexpr std::size_t kCopyLoopMax = std::size_t{1} << 20;

// n bytes from src to dst, which do not overlap.
void copy_loop(char* dst, const char* src, std::size_t n);

// memmove, with the range above through the loop.
inline void copy(void* dst, const void* src, std::size_t n) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (n < kCopyLoopMin || n >= kCopyLoopMax || (d < s + n && s < d + n)) {
    std::memmove(d, s, n);
    return;
  }
  copy_loop(d, s, n);
}

}  // namespace osprey::cpu
