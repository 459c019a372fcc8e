#include "datatype/runs.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace osprey::dt {
namespace {

void dense_int(TypeInfo& t) {
  t.size = 4;
  t.extent = 4;
  t.true_extent = 4;
  t.dense = true;
  t.blocks = {{0, 4}};
}

// Two ints every 12 bytes: like a vector(2 blocks of 1 int, stride 2) resized to 12.
void strided(TypeInfo& t) {
  t.size = 8;
  t.extent = 12;
  t.true_extent = 12;
  t.dense = false;
  t.blocks = {{0, 4}, {8, 4}};
}

TEST(Runs, DenseIsOneRun) {
  TypeInfo t;
  dense_int(t);
  std::vector<char> buf(40);
  RunCursor c(buf.data(), 10, t);
  char* p;
  size_t n;
  ASSERT_TRUE(c.next(p, n));
  EXPECT_EQ(p, buf.data());
  EXPECT_EQ(n, 40u);
  EXPECT_FALSE(c.next(p, n));
}

TEST(Runs, StridedMergesTouchingBlocks) {
  TypeInfo t;
  strided(t);
  std::vector<char> buf(36);
  RunCursor c(buf.data(), 3, t);
  std::vector<std::pair<ptrdiff_t, size_t>> runs;
  char* p;
  size_t n;
  while (c.next(p, n))
    runs.push_back({p - buf.data(), n});
  // Blocks at 0,8 | 12,20 | 24,32: 8..12 and 12..16 touch, 20..24 and 24..28 touch.
  std::vector<std::pair<ptrdiff_t, size_t>> want = {{0, 4}, {8, 8}, {20, 8}, {32, 4}};
  EXPECT_EQ(runs, want);
}

TEST(Runs, CopyBetweenLayouts) {
  TypeInfo d, s;
  dense_int(d);
  strided(s);
  std::vector<int> src(9);
  std::iota(src.begin(), src.end(), 100);  // elements at int index 0,2 | 3,5 | 6,8
  std::vector<int> dst(6, -1);
  copy(dst.data(), 6, d, src.data(), 3, s);
  EXPECT_EQ(dst, (std::vector<int>{100, 102, 103, 105, 106, 108}));
  std::vector<int> back(9, -1);
  copy(back.data(), 3, s, dst.data(), 6, d);
  EXPECT_EQ(back, (std::vector<int>{100, -1, 102, 103, -1, 105, 106, -1, 108}));
}

// Both sides strided: one layout (the same TypeInfo, or an equal one) copies run for run; two
// layouts of the same data walk both run lists.
TEST(Runs, CopyBetweenStridedLayouts) {
  TypeInfo s, same;
  strided(s);
  strided(same);
  std::vector<int> src(9);
  std::iota(src.begin(), src.end(), 100);
  const std::vector<int> want{100, -1, 102, 103, -1, 105, 106, -1, 108};
  for (const TypeInfo* d : {&s, &same}) {
    std::vector<int> dst(9, -1);
    copy(dst.data(), 3, *d, src.data(), 3, s);
    EXPECT_EQ(dst, want);
  }
  // Four ints every 20 bytes (blocks at 0, 8 and 12), against the 12-byte one above.
  TypeInfo other;
  other.size = 12;
  other.extent = 20;
  other.true_extent = 16;
  other.dense = false;
  other.blocks = {{0, 4}, {8, 8}};
  std::vector<int> dst(10, -1);
  copy(dst.data(), 2, other, src.data(), 3, s);
  EXPECT_EQ(dst, (std::vector<int>{100, -1, 102, 103, -1, 105, -1, 106, 108, -1}));
}

TEST(Runs, PackUnpackRoundTrip) {
  TypeInfo s;
  strided(s);
  std::vector<int> src(9);
  std::iota(src.begin(), src.end(), 1);
  std::vector<int> packed(6);
  pack(packed.data(), src.data(), 3, s);
  EXPECT_EQ(packed, (std::vector<int>{1, 3, 4, 6, 7, 9}));
  std::vector<int> out(9, 0);
  unpack(out.data(), 3, s, packed.data());
  EXPECT_EQ(out, (std::vector<int>{1, 0, 3, 4, 0, 6, 7, 0, 9}));
}

}  // namespace
}  // namespace osprey::dt
