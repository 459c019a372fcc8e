#include "util/handle_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace osprey {
namespace {

TEST(HandleMap, InsertFindErase) {
  HandleMap<int> m;
  int a = 1, b = 2;
  EXPECT_EQ(m.find(10), nullptr);
  m.insert(10, &a);
  m.insert(0x20000000, &b);
  EXPECT_EQ(m.find(10), &a);
  EXPECT_EQ(m.find(0x20000000), &b);
  EXPECT_EQ(m.erase(10), &a);
  EXPECT_EQ(m.find(10), nullptr);
  EXPECT_EQ(m.find(0x20000000), &b);
  EXPECT_EQ(m.erase(10), nullptr);
  EXPECT_EQ(m.size(), 1u);
}

TEST(HandleMap, GrowsAndKeepsEverything) {
  HandleMap<int> m;
  std::vector<int> vals(5000);
  for (int i = 0; i < 5000; ++i)
    m.insert(static_cast<uint64_t>(i) * 7919, &vals[i]);
  for (int i = 0; i < 5000; i += 2)
    EXPECT_EQ(m.erase(static_cast<uint64_t>(i) * 7919), &vals[i]);
  for (int i = 0; i < 5000; ++i)
    EXPECT_EQ(m.find(static_cast<uint64_t>(i) * 7919), i % 2 ? &vals[i] : nullptr);
  EXPECT_EQ(m.size(), 2500u);
}

TEST(HandleMap, ReplaceKeepsSize) {
  HandleMap<int> m;
  int a = 1, b = 2;
  m.insert(5, &a);
  m.insert(5, &b);
  EXPECT_EQ(m.find(5), &b);
  EXPECT_EQ(m.size(), 1u);
}

// Readers never see a wrong value while a writer churns other keys.
TEST(HandleMap, ConcurrentReadersSeeStableKeys) {
  HandleMap<int> m;
  std::vector<int> stable(64), churn(64);
  for (int i = 0; i < 64; ++i)
    m.insert(static_cast<uint64_t>(i), &stable[i]);
  std::atomic<bool> stop{false};
  std::atomic<long> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      while (!stop.load()) {
        for (int i = 0; i < 64; ++i)
          if (m.find(static_cast<uint64_t>(i)) != &stable[i]) bad.fetch_add(1);
      }
    });
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 64; ++i)
      m.insert(1000 + static_cast<uint64_t>(round * 64 + i), &churn[i]);
    for (int i = 0; i < 64; ++i)
      m.erase(1000 + static_cast<uint64_t>(round * 64 + i));
  }
  stop = true;
  for (auto& t : readers)
    t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace osprey
