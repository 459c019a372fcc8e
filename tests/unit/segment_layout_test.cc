#include "transport/shm/window_segment.h"

#include <gtest/gtest.h>

#include <set>

namespace osprey::shm {
namespace {

TEST(SegmentLayout, ContiguousRanksAreBackToBack) {
  uint64_t sizes[3] = {100, 0, 37}, off[3];
  auto l = SegmentLayout::compute(3, sizes, true, 16, false, off);
  EXPECT_EQ(l.data % 4096, 0u);
  EXPECT_EQ(off[0], l.data);
  EXPECT_EQ(off[1], l.data + 100);
  EXPECT_EQ(off[2], l.data + 100);
  EXPECT_GE(l.total, off[2] + 37);
}

TEST(SegmentLayout, NoncontiguousRanksArePageAligned) {
  uint64_t sizes[3] = {100, 5000, 1}, off[3];
  auto l = SegmentLayout::compute(3, sizes, false, 16, false, off);
  for (uint64_t o : off)
    EXPECT_EQ(o % 4096, 0u);
  EXPECT_EQ(off[1], l.data + 4096);
  EXPECT_EQ(off[2], l.data + 3 * 4096);
}

TEST(SegmentLayout, NoncontiguousRanksStartAtTheOffsetIntoTheirOwnPages) {
  uint64_t sizes[3] = {100, 5000, 2048}, off[3];
  auto l = SegmentLayout::compute(3, sizes, false, 16, false, off, 2048);
  for (uint64_t o : off)
    EXPECT_EQ(o % 4096, 2048u);
  EXPECT_EQ(off[0], l.data + 2048);
  EXPECT_EQ(off[1], l.data + 4096 + 2048);      // rank 0's 100 bytes end in its first page
  EXPECT_EQ(off[2], l.data + 3 * 4096 + 2048);  // rank 1's 5000 bytes spill into a third
  EXPECT_GE(l.total, off[2] + 2048);
}

TEST(SegmentLayout, ControlPartsDoNotOverlap) {
  auto l = SegmentLayout::compute(5, nullptr, false, 8, true, nullptr);
  EXPECT_LT(l.rank_info, l.locks);
  EXPECT_EQ(l.locks - l.rank_info, 5 * sizeof(RankInfo));
  EXPECT_EQ(l.acc - l.locks, 5 * sizeof(LockWords));
  EXPECT_EQ(l.inflight - l.acc, 5 * sizeof(AccLock));
  // Each rank's row of in-flight counters holds all five ranks and owns its cache lines.
  EXPECT_GE(l.inflight_row, 5 * sizeof(uint32_t));
  EXPECT_EQ(l.inflight_row % 64, 0u);
  EXPECT_EQ(l.pscw - l.inflight, 5 * l.inflight_row);
  EXPECT_LE(l.match + 5 * l.match_words * 8, l.stripe);
  EXPECT_EQ(l.attach - l.stripe, 8 * sizeof(Stripe));
  EXPECT_LE(l.attach + 5 * sizeof(AttachTableHeader), l.data);
  EXPECT_GT(l.total, l.data);
}

TEST(SegmentLayout, StagingAreasFollowTheAttachTablesOnTheirOwnLines) {
  auto none = SegmentLayout::compute(3, nullptr, false, 8, true, nullptr);
  EXPECT_EQ(none.stage_bytes, 0u);
  auto l = SegmentLayout::compute(3, nullptr, false, 8, true, nullptr, 0, 1000);
  EXPECT_EQ(l.stage_bytes, 1024u);  // rounded up to whole cache lines
  EXPECT_EQ(l.stage, l.attach + 3 * sizeof(AttachTableHeader));
  EXPECT_EQ(l.stage % 64, 0u);
  EXPECT_LE(l.stage + 3 * (sizeof(StageHeader) + 1024), l.data);
  alignas(64) static char seg[1 << 16];
  ASSERT_LE(l.data, sizeof seg);
  SegmentView v(seg, l);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(reinterpret_cast<char*>(&v.stage(i)), seg + l.stage + i * (64 + 1024));
    EXPECT_EQ(v.stage_data(i), reinterpret_cast<char*>(&v.stage(i)) + 64);
  }
}

TEST(SegmentLayout, ServedSlotsAreDistinctLinesAfterTheStagingAreas) {
  auto none = SegmentLayout::compute(3, nullptr, false, 8, false, nullptr);
  EXPECT_EQ(none.serve, 0u);
  auto l = SegmentLayout::compute(3, nullptr, false, 8, false, nullptr, 0, 1000, true);
  EXPECT_EQ(l.serve, l.stage + 3 * (sizeof(StageHeader) + 1024));
  EXPECT_LE(l.serve + 3 * sizeof(ServeBell) + 9 * sizeof(ServeSlot), l.data);
  alignas(64) static char seg[1 << 16];
  ASSERT_LE(l.data, sizeof seg);
  SegmentView v(seg, l);
  std::set<const char*> lines;
  for (uint32_t t = 0; t < 3; ++t) {
    EXPECT_TRUE(lines.insert(reinterpret_cast<char*>(&v.serve_bell(t))).second);
    for (uint32_t o = 0; o < 3; ++o) {
      const char* s = reinterpret_cast<char*>(&v.serve_slot(o, t));
      EXPECT_EQ((s - seg) % 64, 0);
      EXPECT_TRUE(lines.insert(s).second);
      EXPECT_TRUE(lines.insert(s + 64).second);  // a slot is two lines of its own
      EXPECT_LE(s + sizeof(ServeSlot), seg + l.data);
    }
  }
}

}  // namespace
}  // namespace osprey::shm
