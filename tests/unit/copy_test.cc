#include "util/copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace osprey {
namespace {

// Every byte of the copy lands, none outside it, for sizes around the loop's edges and its
// 128-byte steps and for every source and destination offset within a cache line.
TEST(Copy, EveryByteAtEveryOffset) {
  const std::size_t sizes[] = {1,    63,   64,   2047, 2048,  2049,  2111,   2112,
                               2175, 4096, 4097, 5000, 65535, 65536, 131073, 1 << 20};
  std::vector<unsigned char> src((1 << 20) + 256);
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t n : sizes) {
    std::vector<unsigned char> dst(n + 192);
    for (std::size_t so = 0; so < 64; so += (n > 10000 ? 13 : 3)) {
      for (std::size_t d_off : {std::size_t{0}, std::size_t{1}, std::size_t{8}, std::size_t{16},
                                std::size_t{33}, std::size_t{48}, std::size_t{63}}) {
        std::fill(dst.begin(), dst.end(), 0xEE);
        cpu::copy(dst.data() + 64 + d_off, src.data() + so, n);
        for (std::size_t i = 0; i < 64 + d_off; ++i)
          ASSERT_EQ(dst[i], 0xEE) << "n " << n << " before the copy at " << i;
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(dst[64 + d_off + i], src[so + i])
              << "n " << n << " src off " << so << " dst off " << d_off << " byte " << i;
        for (std::size_t i = 64 + d_off + n; i < dst.size(); ++i)
          ASSERT_EQ(dst[i], 0xEE) << "n " << n << " after the copy at " << i;
      }
    }
  }
}

// Overlapping ranges (a window copying to itself) move as memmove does, either way.
TEST(Copy, OverlapMovesLikeMemmove) {
  for (std::ptrdiff_t shift : {-4096, -17, -1, 1, 8, 100, 4095}) {
    std::vector<unsigned char> buf(3 * 8192), want;
    for (std::size_t i = 0; i < buf.size(); ++i)
      buf[i] = static_cast<unsigned char>(i * 7 + 3);
    want = buf;
    const std::size_t n = 8192, from = 8192;
    std::memmove(want.data() + from + shift, want.data() + from, n);
    cpu::copy(buf.data() + from + shift, buf.data() + from, n);
    ASSERT_EQ(buf, want) << "shift " << shift;
  }
}

}  // namespace
}  // namespace osprey
