#include "transport/shm/attach_table.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace osprey::shm {
namespace {

class AttachTableTest : public ::testing::Test {
 protected:
  void SetUp() override { tables.init(headers, 2, 0); }
  bool covers(uint64_t lo, uint64_t hi) {
    bool in = false;
    EXPECT_TRUE(tables.covers(0, lo, hi, &in).ok());
    return in;
  }
  AttachTableHeader headers[2] = {};
  AttachTables tables;
};

TEST_F(AttachTableTest, EmptyTableCoversNothing) {
  EXPECT_FALSE(covers(0, 1));
  bool in = true;
  EXPECT_TRUE(tables.covers(1, 100, 200, &in).ok());  // a rank that never attached
  EXPECT_FALSE(in);
}

TEST_F(AttachTableTest, AdjacentRegionsJoin) {
  ASSERT_TRUE(tables.insert(2000, 1000).ok());
  ASSERT_TRUE(tables.insert(1000, 1000).ok());
  EXPECT_TRUE(covers(1000, 3000));
  EXPECT_TRUE(covers(1500, 2500));
  EXPECT_FALSE(covers(999, 1001));
  EXPECT_FALSE(covers(2999, 3001));
  ASSERT_TRUE(tables.insert(3500, 100).ok());
  EXPECT_FALSE(covers(2900, 3550));  // a gap between 3000 and 3500
}

TEST_F(AttachTableTest, OverlapIsRefused) {
  ASSERT_TRUE(tables.insert(1000, 100).ok());
  EXPECT_EQ(tables.insert(1050, 100).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_EQ(tables.insert(950, 51).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_EQ(tables.insert(900, 400).cls, MPI_ERR_RMA_ATTACH);
  EXPECT_TRUE(tables.insert(1100, 10).ok());
  EXPECT_TRUE(tables.insert(990, 10).ok());
  EXPECT_TRUE(tables.insert(1050, 0).ok());  // empty regions overlap nothing
}

TEST_F(AttachTableTest, GrowsWithoutLimitAndErases) {
  constexpr uint64_t kN = 5000;
  // Every other slot, in scrambled order.
  for (uint64_t i = 0; i < kN; ++i) {
    const uint64_t k = (i * 7919) % kN;
    ASSERT_TRUE(tables.insert(1 << 20 | k * 64, 32).ok()) << k;
  }
  EXPECT_EQ(headers[0].count.load(), kN);
  EXPECT_GE(headers[0].capacity.load(), kN);
  for (uint64_t k = 0; k < kN; k += 97) {
    EXPECT_TRUE(covers(1 << 20 | k * 64, (1 << 20 | k * 64) + 32));
    EXPECT_FALSE(covers(1 << 20 | k * 64, (1 << 20 | k * 64) + 33));
  }
  uint64_t len = 0;
  for (uint64_t k = 0; k < kN; k += 2) {
    ASSERT_TRUE(tables.erase(1 << 20 | k * 64, &len));
    EXPECT_EQ(len, 32u);
  }
  EXPECT_FALSE(tables.erase(1 << 20, &len));
  EXPECT_EQ(headers[0].count.load(), kN / 2);
  EXPECT_FALSE(covers(1 << 20, (1 << 20) + 1));
  EXPECT_TRUE(covers(1 << 20 | 64, (1 << 20 | 64) + 32));
}

}  // namespace
}  // namespace osprey::shm
