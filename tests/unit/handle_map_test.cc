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

// A program that makes and frees a datatype per operation: entries come and go at new keys
// while a few stay. The map cleans its freed slots in place instead of piling up tables.
TEST(HandleMap, ChurnKeepsOneTable) {
  HandleMap<int> m;
  std::vector<int> vals(40);
  std::vector<uint64_t> live(40);
  for (int i = 0; i < 40; ++i) {
    live[static_cast<size_t>(i)] = 1u + static_cast<uint64_t>(i);
    m.insert(live[static_cast<size_t>(i)], &vals[static_cast<size_t>(i)]);
  }
  for (uint64_t n = 0; n < 200000; ++n) {
    const size_t k = static_cast<size_t>(n * 7 % 40);
    ASSERT_EQ(m.erase(live[k]), &vals[k]);
    live[k] = 1000 + n * 0x10001;
    m.insert(live[k], &vals[k]);
  }
  EXPECT_EQ(m.size(), 40u);
  for (size_t k = 0; k < 40; ++k)
    EXPECT_EQ(m.find(live[k]), &vals[k]);
  EXPECT_LE(m.tables(), 3u);
}

TEST(HandleMap, InsertIfAbsentKeepsTheFirst) {
  HandleMap<int> m;
  int a = 1, b = 2;
  EXPECT_EQ(m.insert_if_absent(7, &a), &a);
  EXPECT_EQ(m.insert_if_absent(7, &b), &a);
  EXPECT_EQ(m.find(7), &a);
  EXPECT_EQ(m.size(), 1u);
}

// Writers of several threads (more than this machine's cores, so some take the lock's waiting
// path while its holder is preempted): every insert and erase lands, none twice.
TEST(HandleMap, ConcurrentWritersLoseNothing) {
  HandleMap<int> m;
  constexpr int kThreads = 6, kKeys = 3000;
  std::vector<int> vals(kThreads);
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t)
    writers.emplace_back([&m, &vals, t] {
      int* mine = &vals[static_cast<size_t>(t)];
      for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < kKeys; ++k)
          m.insert(static_cast<uint64_t>(t) * kKeys + static_cast<uint64_t>(k) + 1, mine);
        if (round < 2)
          for (int k = 0; k < kKeys; ++k)
            if (m.erase(static_cast<uint64_t>(t) * kKeys + static_cast<uint64_t>(k) + 1) != mine)
              ADD_FAILURE() << "thread " << t << " lost key " << k;
      }
    });
  for (std::thread& w : writers)
    w.join();
  EXPECT_EQ(m.size(), static_cast<size_t>(kThreads) * kKeys);
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kKeys; ++k)
      ASSERT_EQ(m.find(static_cast<uint64_t>(t) * kKeys + static_cast<uint64_t>(k) + 1),
                &vals[static_cast<size_t>(t)]);
}

}  // namespace
}  // namespace osprey
