#include "transport/shm/attach_table.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace osprey::shm {
namespace {

class AttachTableTest : public ::testing::Test {
 protected:
  void SetUp() override { tables.init(headers, 2, 0); }
  AttachLookup find(uint64_t lo, uint64_t hi) {
    AttachLookup at;
    EXPECT_TRUE(tables.find(0, lo, hi, &at).ok());
    return at;
  }
  bool covers(uint64_t lo, uint64_t hi) { return find(lo, hi).inside; }
  Status insert(uint64_t base, uint64_t len, int fd = -1) {
    AttachedRegion r;
    r.base = base;
    r.len = len;
    r.fd = fd;
    r.id = ++ids;
    return tables.insert(r);
  }
  uint64_t ids = 0;
  AttachTableHeader headers[2] = {};
  AttachTables tables;
};

TEST_F(AttachTableTest, EmptyTableCoversNothing) {
  EXPECT_FALSE(covers(0, 1));
  AttachLookup at;
  at.inside = true;
  EXPECT_TRUE(tables.find(1, 100, 200, &at).ok());  // a rank that never attached
  EXPECT_FALSE(at.inside);
}

TEST_F(AttachTableTest, AdjacentRegionsJoin) {
  ASSERT_TRUE(insert(2000, 1000).ok());
  ASSERT_TRUE(insert(1000, 1000).ok());
  EXPECT_TRUE(covers(1000, 3000));
  EXPECT_TRUE(covers(1500, 2500));
  EXPECT_FALSE(covers(999, 1001));
  EXPECT_FALSE(covers(2999, 3001));
  ASSERT_TRUE(insert(3500, 100).ok());
  EXPECT_FALSE(covers(2900, 3550));  // a gap between 3000 and 3500
}

TEST_F(AttachTableTest, OverlapIsRefused) {
  ASSERT_TRUE(insert(1000, 100).ok());
  EXPECT_EQ(insert(1050, 100).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_EQ(insert(950, 51).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_EQ(insert(900, 400).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_TRUE(insert(1100, 10).ok());
  EXPECT_TRUE(insert(990, 10).ok());
  EXPECT_TRUE(insert(1050, 0).ok());  // empty regions overlap nothing
}

TEST_F(AttachTableTest, GrowsWithoutLimitAndErases) {
  constexpr uint64_t kN = 5000;
  // Every other slot, in scrambled order.
  for (uint64_t i = 0; i < kN; ++i) {
    const uint64_t k = (i * 7919) % kN;
    ASSERT_TRUE(insert(1 << 20 | k * 64, 32).ok()) << k;
  }
  EXPECT_EQ(headers[0].count.load(), kN);
  EXPECT_GE(headers[0].capacity.load(), kN);
  for (uint64_t k = 0; k < kN; k += 97) {
    EXPECT_TRUE(covers(1 << 20 | k * 64, (1 << 20 | k * 64) + 32));
    EXPECT_FALSE(covers(1 << 20 | k * 64, (1 << 20 | k * 64) + 33));
  }
  AttachedRegion gone;
  for (uint64_t k = 0; k < kN; k += 2) {
    ASSERT_TRUE(tables.erase(1 << 20 | k * 64, &gone));
    EXPECT_EQ(gone.len, 32u);
  }
  EXPECT_FALSE(tables.erase(1 << 20, &gone));
  EXPECT_EQ(headers[0].count.load(), kN / 2);
  EXPECT_FALSE(covers(1 << 20, (1 << 20) + 1));
  EXPECT_TRUE(covers(1 << 20 | 64, (1 << 20 | 64) + 32));
}

// A shared region is named only to an access that lies inside it alone; one that spans it and a
// neighbour is still inside, and says it touches shared memory.
TEST_F(AttachTableTest, SharedRegionsAreNamedAlone) {
  ASSERT_TRUE(insert(1000, 1000, 7).ok());
  ASSERT_TRUE(insert(2000, 1000).ok());
  AttachLookup at = find(1100, 1200);
  EXPECT_TRUE(at.inside && at.single && at.shared);
  EXPECT_EQ(at.region.base, 1000u);
  EXPECT_EQ(at.region.fd, 7);
  EXPECT_EQ(at.region.id, 1u);
  at = find(1900, 2100);
  EXPECT_TRUE(at.inside && at.shared);
  EXPECT_FALSE(at.single);
  at = find(2100, 2200);
  EXPECT_TRUE(at.inside && at.single);
  EXPECT_FALSE(at.shared);
  EXPECT_FALSE(find(2900, 3100).inside);
  EXPECT_FALSE(tables.alone(3000, 10));  // touches the second region
  EXPECT_TRUE(tables.alone(3001, 10));
}

TEST_F(AttachTableTest, HoldsFollowsIds) {
  ASSERT_TRUE(insert(1000, 100, 3).ok());
  ASSERT_TRUE(insert(5000, 100, 4).ok());
  bool held = false;
  EXPECT_TRUE(tables.holds(0, 2, &held).ok());
  EXPECT_TRUE(held);
  AttachedRegion gone;
  ASSERT_TRUE(tables.erase(5000, &gone));
  EXPECT_EQ(gone.fd, 4);
  EXPECT_TRUE(tables.holds(0, 2, &held).ok());
  EXPECT_FALSE(held);
  ASSERT_TRUE(insert(5000, 100, 4).ok());  // the same place again: a new id
  EXPECT_TRUE(tables.holds(0, 2, &held).ok());
  EXPECT_FALSE(held);
  EXPECT_TRUE(tables.holds(0, 3, &held).ok());
  EXPECT_TRUE(held);
}

}  // namespace
}  // namespace osprey::shm
