// The node's count of waiting ranks: marks count while set, every wait past its first spins
// sets one on an oversubscribed node, and every way out of a wait clears it (a mark left behind
// would stop spinning callers from ever handing their CPU over).
#include "progress/node_waiters.h"

#include <gtest/gtest.h>

#include <atomic>

#include "progress/backoff.h"
#include "progress/oversub.h"

namespace osprey::progress {
namespace {

struct SharedWord : ::testing::Test {
  std::atomic<uint32_t> word{0};
  void SetUp() override { share_node_waiters(&word, 3); }
  void TearDown() override {
    share_node_waiters(nullptr, 0);
    set_oversubscribed_for_tests(false);
  }
};

TEST(NodeWaiters, WithoutASharedWordNothingCounts) {
  WaiterMark m;
  m.set();
  EXPECT_FALSE(node_peers_all_waiting());
  m.clear();
}

TEST_F(SharedWord, AllPeersWaitingOnceEveryOtherRankMarked) {
  EXPECT_FALSE(node_peers_all_waiting());
  {
    WaiterMark a, b;
    a.set();
    a.set();  // once per wait, however often it pauses
    EXPECT_EQ(word.load(), 1u);
    EXPECT_FALSE(node_peers_all_waiting());
    b.set();
    EXPECT_EQ(word.load(), 2u);
    EXPECT_TRUE(node_peers_all_waiting());
    a.clear();
    EXPECT_FALSE(node_peers_all_waiting());
    a.clear();
    EXPECT_EQ(word.load(), 1u);
  }
  EXPECT_EQ(word.load(), 0u);  // b's destructor
}

TEST_F(SharedWord, OversubscribedWaitMarksPastSpinningAndClearsOnWorkAndEnd) {
  set_oversubscribed_for_tests(true);
  {
    Backoff b;
    for (int i = 0; i < 64 && word.load() == 0; ++i)
      b.pause();
    EXPECT_EQ(word.load(), 1u);
    b.pause();
    EXPECT_EQ(word.load(), 1u);
    b.reset();  // work showed up
    EXPECT_EQ(word.load(), 0u);
    for (int i = 0; i < 64 && word.load() == 0; ++i)
      b.pause();
    EXPECT_EQ(word.load(), 1u);
  }
  EXPECT_EQ(word.load(), 0u);
}

TEST_F(SharedWord, WaitsOnANodeWithCpusToSpareDoNotMark) {
  set_oversubscribed_for_tests(false);
  Backoff b;
  for (int i = 0; i < 600; ++i)
    b.pause();
  EXPECT_EQ(word.load(), 0u);
}

}  // namespace
}  // namespace osprey::progress
