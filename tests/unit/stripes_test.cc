// The accumulate lock stripes and spin locks of a window segment (rma/stripes.h), over a
// private buffer laid out as a real segment.
#include "rma/stripes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace osprey::rma {
namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

// A zeroed segment of `nranks` ranks and `stripes` stripes, as every rank would map it.
class Segment {
 public:
  Segment(uint32_t nranks, std::size_t stripes)
      : layout_(shm::SegmentLayout::compute(nranks, nullptr, false, stripes, false, nullptr)),
        mem_(static_cast<char*>(std::aligned_alloc(4096, layout_.total))),
        view_(mem_.get(), layout_) {
    std::memset(mem_.get(), 0, layout_.total);
  }
  const shm::SegmentView& view() const { return view_; }
  uint32_t word(std::size_t stripe) const { return view_.stripe(stripe).word.load(); }
  // Stripes currently taken.
  std::set<std::size_t> held() const {
    std::set<std::size_t> s;
    for (std::size_t i = 0; i < layout_.stripes; ++i)
      if (word(i)) s.insert(i);
    return s;
  }

 private:
  shm::SegmentLayout layout_;
  std::unique_ptr<char, FreeDeleter> mem_;
  shm::SegmentView view_;
};

TEST(Stripes, IndexIsInRangeAndStable) {
  for (std::size_t n : {1u, 7u, 256u}) {
    Segment seg(4, n);
    Stripes s(&seg.view());
    for (int local = 0; local < 4; ++local)
      for (uint64_t key = 0; key < 4096; key += 4) {
        const std::size_t i = s.index(local, key);
        EXPECT_LT(i, n);
        EXPECT_EQ(i, s.index(local, key));
      }
  }
}

TEST(Stripes, IndexDependsOnlyOnLocalAndKey) {
  // Two processes build their own Stripes over their own mapping of the same segment: the
  // stripe of an element must come out the same in both, or they would not exclude each other.
  Segment a(3, 256), b(3, 256);
  Stripes sa(&a.view()), sb(&b.view());
  for (int local = 0; local < 3; ++local)
    for (uint64_t key = 0x7f0000001000; key < 0x7f0000003000; key += 8)
      EXPECT_EQ(sa.index(local, key), sb.index(local, key));
}

TEST(Stripes, IndexSpreadsElementsOverStripes) {
  // Neighbouring elements and ranks do not all collapse onto one stripe, which would serialize
  // every accumulate (the spread itself is measured below).
  Segment seg(4, 64);
  Stripes s(&seg.view());
  std::set<std::size_t> by_key, by_rank;
  for (uint64_t key = 0; key < 64 * 64; key += 64)
    by_key.insert(s.index(0, key));
  for (int local = 0; local < 4; ++local)
    by_rank.insert(s.index(local, 4096));
  EXPECT_GT(by_key.size(), 1u);
  EXPECT_GT(by_rank.size(), 1u);
}

// Neighbouring elements spread over the stripes with the default power-of-two stripe count:
// taking the low bits of the hash put 64 consecutive 16-byte elements on only 25 of 256
// stripes (64 cache-line-strided ones on 17), so unrelated elements contended for one stripe.
TEST(Stripes, IndexSpreadsNeighbouringElementsWell) {
  Segment seg(1, 256);
  Stripes s(&seg.view());
  for (uint64_t step : {16u, 64u}) {
    std::set<std::size_t> used;
    for (uint64_t k = 0; k < 64; ++k)
      used.insert(s.index(0, k * step));
    EXPECT_GE(used.size(), 40u) << "64 elements " << step << " bytes apart";
  }
}

TEST(Stripes, LockAndUnlockSetTheStripeWord) {
  Segment seg(1, 8);
  Stripes s(&seg.view());
  s.lock(3);
  EXPECT_EQ(seg.held(), (std::set<std::size_t>{3}));
  s.unlock(3);
  EXPECT_TRUE(seg.held().empty());
}

TEST(Stripes, GuardSortsDeduplicatesAndReleases) {
  Segment seg(2, 16);
  Stripes s(&seg.view());
  std::vector<std::size_t> set = {9, 2, 9, 15, 2, 0, 9};
  {
    Stripes::Guard g(s, set);
    EXPECT_EQ(set, (std::vector<std::size_t>{0, 2, 9, 15}));
    EXPECT_EQ(seg.held(), (std::set<std::size_t>{0, 2, 9, 15}));
  }
  EXPECT_TRUE(seg.held().empty());
}

TEST(Stripes, GuardOfAnEmptySetTakesNothing) {
  Segment seg(1, 4);
  Stripes s(&seg.view());
  std::vector<std::size_t> set;
  {
    Stripes::Guard g(s, set);
    EXPECT_TRUE(seg.held().empty());
  }
  EXPECT_TRUE(seg.held().empty());
}

TEST(Stripes, OverlappingGuardsInThreadsDoNotDeadlock) {
  // Each thread takes the same stripes listed in a different order: only sorting makes that
  // safe. A plain counter per stripe checks the exclusion as well.
  Segment seg(1, 8);
  Stripes s(&seg.view());
  constexpr int kThreads = 4, kIters = 2000;
  long counters[8] = {};
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        std::vector<std::size_t> set =
            t % 2 ? std::vector<std::size_t>{7, 3, 1, 3} : std::vector<std::size_t>{1, 3, 7};
        Stripes::Guard g(s, set);
        for (std::size_t k : set)
          ++counters[k];
      }
    });
  for (auto& t : ts)
    t.join();
  for (std::size_t k : {1, 3, 7})
    EXPECT_EQ(counters[k], kThreads * kIters);
  EXPECT_TRUE(seg.held().empty());
}

TEST(SpinLock, MutualExclusionAcrossThreads) {
  std::atomic<uint32_t> word{0};
  constexpr int kThreads = 4, kIters = 20000;
  long counter = 0;
  std::atomic<int> inside{0}, violations{0};
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        spin_lock(word);
        if (inside.fetch_add(1) != 0) violations.fetch_add(1);
        ++counter;
        inside.fetch_sub(1);
        spin_unlock(word);
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(counter, static_cast<long>(kThreads) * kIters);
  EXPECT_EQ(word.load(), 0u);
}

TEST(WholeOpGuard, HoldsOnlyWhenAsked) {
  Segment seg(2, 4);
  shm::AccLock& acc = seg.view().acc(1);
  {
    WholeOpGuard g(acc, false);
    EXPECT_EQ(acc.word.load(), 0u);
  }
  EXPECT_EQ(acc.word.load(), 0u);
  {
    WholeOpGuard g(acc, true);
    EXPECT_NE(acc.word.load(), 0u);
    EXPECT_EQ(seg.view().acc(0).word.load(), 0u);  // another rank's lock is left alone
  }
  EXPECT_EQ(acc.word.load(), 0u);
}

TEST(WholeOpGuard, ExcludesAcrossThreads) {
  Segment seg(1, 4);
  shm::AccLock& acc = seg.view().acc(0);
  constexpr int kThreads = 4, kIters = 5000;
  long counter = 0;
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        WholeOpGuard g(acc, true);
        ++counter;
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(counter, static_cast<long>(kThreads) * kIters);
}

}  // namespace
}  // namespace osprey::rma
