#include "util/copy.h"

#include <cstdint>

namespace osprey::cpu {
namespace {

// may_alias: the stores write window and user memory of any type through it.
typedef char V32 __attribute__((vector_size(32), may_alias));

// Unaligned 32-byte loads, stores aligned to 64 bytes; the first and last 64 bytes go as
// unaligned chunks that may overlap the middle. n is at least 64 (kCopyLoopMin).
inline __attribute__((always_inline)) void copy_vectors(char* d, const char* s, std::size_t n) {
  char* const end = d + n;
  const char* const send = s + n;
  V32 t0, t1, h0, h1;
  std::memcpy(&h0, s, 32);
  std::memcpy(&h1, s + 32, 32);
  std::memcpy(&t0, send - 64, 32);
  std::memcpy(&t1, send - 32, 32);
  const std::size_t skip = 64 - (reinterpret_cast<uintptr_t>(d) & 63);
  char* p = d + skip;
  const char* q = s + skip;
  for (; p + 128 <= end - 64; p += 128, q += 128) {
    V32 a, b, c, e;
    std::memcpy(&a, q, 32);
    std::memcpy(&b, q + 32, 32);
    std::memcpy(&c, q + 64, 32);
    std::memcpy(&e, q + 96, 32);
    *reinterpret_cast<V32*>(p) = a;
    *reinterpret_cast<V32*>(p + 32) = b;
    *reinterpret_cast<V32*>(p + 64) = c;
    *reinterpret_cast<V32*>(p + 96) = e;
  }
  for (; p < end - 64; p += 32, q += 32) {
    V32 a;
    std::memcpy(&a, q, 32);
    *reinterpret_cast<V32*>(p) = a;
  }
  std::memcpy(d, &h0, 32);
  std::memcpy(d + 32, &h1, 32);
  std::memcpy(end - 64, &t0, 32);
  std::memcpy(end - 32, &t1, 32);
}

using CopyFn = void (*)(char*, const char*, std::size_t);

#if defined(__x86_64__)
// Built twice: for AVX2, and with the 16-byte SSE2 moves every x86-64 has. Chosen on first use,
// not by an ifunc (target_clones): a resolver runs while the library is relocated, before a
// preloaded sanitizer runtime is ready, and crashed every process under ThreadSanitizer.
__attribute__((target("avx2"))) void copy_avx2(char* d, const char* s, std::size_t n) {
  copy_vectors(d, s, n);
}
void copy_sse2(char* d, const char* s, std::size_t n) {
  copy_vectors(d, s, n);
}

CopyFn pick_copy() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? copy_avx2 : copy_sse2;
}
#else
// Elsewhere the loop is built for the baseline vector unit.
void copy_baseline(char* d, const char* s, std::size_t n) {
  copy_vectors(d, s, n);
}
CopyFn pick_copy() {
  return copy_baseline;
}
#endif

}  // namespace

void copy_loop(char* dst, const char* src, std::size_t n) {
  static const CopyFn copy = pick_copy();
  copy(dst, src, n);
}

}  // namespace osprey::cpu
