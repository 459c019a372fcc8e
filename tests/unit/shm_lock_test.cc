// The phase-fair reader-writer lock of a window rank (rma/shm_lock.h), within one process:
// the lock words are plain atomics, so threads stand in for node peers.
#include "rma/shm_lock.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

namespace osprey::rma::shm_lock {
namespace {

using Stage = AsyncLock::Stage;

// A lock nobody holds or waits for: every arrival has departed, every ticket was served and
// no writer bit is left behind.
void expect_quiescent(const shm::LockWords& l) {
  EXPECT_EQ(l.rin(), l.rout.load());
  EXPECT_EQ(l.win(), l.wout.load());
  EXPECT_EQ(l.rin() & 0xffu, 0u);
}

AsyncLock shared_req() {
  AsyncLock a;
  a.type = MPI_LOCK_SHARED;
  return a;
}

AsyncLock exclusive_req() {
  AsyncLock a;
  a.type = MPI_LOCK_EXCLUSIVE;
  return a;
}

// Waits for `cond`, giving up after a generous bound so that a broken lock fails the test
// instead of hanging it (the bound is never the thing being tested).
template <class Cond>
bool eventually(Cond&& cond) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    sched_yield();
  }
  return true;
}

TEST(ShmLock, SharedHoldersCoexistInOneThread) {
  shm::LockWords l{};
  // A second shared lock while the first is held must not wait (it would spin forever here).
  lock_shared(l, nullptr);
  lock_shared(l, nullptr);
  lock_shared(l, nullptr);
  unlock_shared(l);
  unlock_shared(l);
  unlock_shared(l);
  expect_quiescent(l);
}

TEST(ShmLock, SharedHoldersCoexistAcrossThreads) {
  shm::LockWords l{};
  constexpr int kThreads = 4;
  std::atomic<int> inside{0};
  std::atomic<bool> all_met{true};
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      start.arrive_and_wait();
      lock_shared(l, nullptr);
      inside.fetch_add(1);
      // Every reader keeps holding until all are in: only possible if none excludes another.
      if (!eventually([&] { return inside.load() == kThreads; })) all_met = false;
      unlock_shared(l);
    });
  for (auto& t : ts)
    t.join();
  EXPECT_TRUE(all_met.load());
  expect_quiescent(l);
}

TEST(ShmLock, ExclusiveExcludesEveryone) {
  shm::LockWords l{};
  constexpr int kThreads = 4;
  constexpr int kIters = 3000;
  long counter = 0;  // plain: only the exclusive lock protects it
  std::atomic<int> writers{0}, readers{0}, violations{0};
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        // Mix in shared holders so that exclusion against readers is exercised as well.
        if ((i + t) % 4 == 0) {
          lock_shared(l, nullptr);
          readers.fetch_add(1);
          if (writers.load() != 0) violations.fetch_add(1);
          readers.fetch_sub(1);
          unlock_shared(l);
          continue;
        }
        lock_exclusive(l, nullptr);
        if (writers.fetch_add(1) != 0 || readers.load() != 0) violations.fetch_add(1);
        ++counter;
        writers.fetch_sub(1);
        unlock_exclusive(l);
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(counter, static_cast<long>(kThreads) * kIters * 3 / 4);
  expect_quiescent(l);
}

TEST(ShmLock, BlockingWriterWaitsForReaderInAnotherThread) {
  shm::LockWords l{};
  lock_shared(l, nullptr);
  std::atomic<bool> got{false};
  std::thread w([&] {
    lock_exclusive(l, nullptr);
    got = true;
    unlock_exclusive(l);
  });
  // The writer announces itself in rin once it has its ticket: from then on it only waits
  // for this reader, and a new shared request must queue behind it.
  ASSERT_TRUE(eventually([&] { return (l.rin() & 0x2u) != 0; }));
  EXPECT_FALSE(got.load());
  AsyncLock late = shared_req();
  EXPECT_FALSE(advance(late, l));
  unlock_shared(l);
  w.join();
  EXPECT_TRUE(got.load());
  EXPECT_TRUE(advance(late, l));
  release(late, l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, SharedIsHeldAtOnceWhenFree) {
  shm::LockWords l{};
  AsyncLock a = shared_req(), b = shared_req();
  EXPECT_TRUE(advance(a, l));
  EXPECT_TRUE(advance(b, l));
  EXPECT_EQ(a.stage, Stage::kHeld);
  // Advancing a held lock again changes nothing.
  EXPECT_TRUE(advance(a, l));
  release(a, l);
  release(b, l);
  EXPECT_EQ(a.stage, Stage::kIdle);
  EXPECT_EQ(b.stage, Stage::kIdle);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, WriterWaitsForEarlierReadersAndLaterReadersGoAfterIt) {
  shm::LockWords l{};
  AsyncLock r1 = shared_req(), r2 = shared_req(), w = exclusive_req(), r3 = shared_req();
  ASSERT_TRUE(advance(r1, l));
  ASSERT_TRUE(advance(r2, l));
  EXPECT_FALSE(advance(w, l));
  EXPECT_EQ(w.stage, Stage::kWriterReaders);
  // r3 arrives while the writer waits: it must not overtake the writer.
  EXPECT_FALSE(advance(r3, l));
  EXPECT_EQ(r3.stage, Stage::kReaderWait);
  release(r1, l);
  EXPECT_FALSE(advance(w, l));  // r2 still holds
  EXPECT_FALSE(advance(r3, l));
  release(r2, l);
  EXPECT_TRUE(advance(w, l));
  EXPECT_FALSE(advance(r3, l));
  release(w, l);
  EXPECT_EQ(w.stage, Stage::kIdle);
  EXPECT_TRUE(advance(r3, l));
  release(r3, l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, WritersAreServedInTicketOrder) {
  shm::LockWords l{};
  AsyncLock w1 = exclusive_req(), w2 = exclusive_req(), w3 = exclusive_req();
  ASSERT_TRUE(advance(w1, l));
  EXPECT_FALSE(advance(w2, l));
  EXPECT_FALSE(advance(w3, l));
  EXPECT_EQ(w2.stage, Stage::kWriterTicket);
  EXPECT_EQ(w3.stage, Stage::kWriterTicket);
  release(w1, l);
  // Only the next ticket gets in; the one after keeps waiting.
  EXPECT_FALSE(advance(w3, l));
  EXPECT_TRUE(advance(w2, l));
  EXPECT_FALSE(advance(w3, l));
  release(w2, l);
  EXPECT_TRUE(advance(w3, l));
  release(w3, l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, ReadersQueuedBehindAWriterAllEnterWhenItLeaves) {
  shm::LockWords l{};
  AsyncLock w = exclusive_req(), r1 = shared_req(), r2 = shared_req(), w2 = exclusive_req();
  ASSERT_TRUE(advance(w, l));
  EXPECT_FALSE(advance(r1, l));
  EXPECT_FALSE(advance(r2, l));
  EXPECT_FALSE(advance(w2, l));
  release(w, l);
  // Phase fairness: the readers that waited for w enter before the next writer, which now
  // waits for them (its ticket is served, so it announces itself and waits for rout).
  EXPECT_TRUE(advance(r1, l));
  EXPECT_FALSE(advance(w2, l));
  EXPECT_EQ(w2.stage, Stage::kWriterReaders);
  EXPECT_TRUE(advance(r2, l));
  release(r1, l);
  EXPECT_FALSE(advance(w2, l));
  release(r2, l);
  EXPECT_TRUE(advance(w2, l));
  release(w2, l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, ConsecutiveWritersAlternatePhase) {
  shm::LockWords l{};
  // A reader that arrived under one writer must be let in when that writer leaves, even if
  // the next writer has already announced itself (the phase bit tells the two apart).
  AsyncLock w1 = exclusive_req(), r = shared_req(), w2 = exclusive_req();
  ASSERT_TRUE(advance(w1, l));
  EXPECT_FALSE(advance(r, l));
  EXPECT_FALSE(advance(w2, l));
  release(w1, l);
  EXPECT_FALSE(advance(w2, l));  // announces itself with the other phase, waits for r
  EXPECT_TRUE(advance(r, l));
  release(r, l);
  EXPECT_TRUE(advance(w2, l));
  release(w2, l);
  expect_quiescent(l);
}

// The writer tickets and the reader arrivals share one 64-bit word: tickets wrapping at 2^32
// must leave the readers' half alone, and readers wrapping must not touch the tickets.
TEST(ShmLock, CountersWrapWithoutTouchingEachOther) {
  shm::LockWords l{};
  l.arrivals.store((uint64_t{0xffffff00u} << 32) | 0xfffffffeu);  // both 2 steps from wrapping
  l.wout.store(0xfffffffeu);
  l.rout.store(0xffffff00u);
  for (int i = 0; i < 4; ++i) {  // tickets 0xfffffffe, 0xffffffff, 0, 1
    lock_exclusive(l, nullptr);
    EXPECT_EQ(l.rin() & ~0xffu, 0xffffff00u + 2u * 0x100u * static_cast<uint32_t>(i)) << i;
    unlock_exclusive(l);
    lock_shared(l, nullptr);  // the readers' count wraps at the first of these
    lock_shared(l, nullptr);
    unlock_shared(l);
    unlock_shared(l);
    expect_quiescent(l);
  }
  EXPECT_EQ(l.win(), 2u);
  EXPECT_EQ(l.rin(), 0xffffff00u + 8u * 0x100u);
  // A writer that must wait (slow path) also wraps cleanly.
  l.arrivals.store((uint64_t{0} << 32) | 0xffffffffu);
  l.wout.store(0xffffffffu);
  l.rout.store(0);
  lock_shared(l, nullptr);
  AsyncLock w = exclusive_req();
  EXPECT_FALSE(advance(w, l));
  EXPECT_EQ(w.ticket, 0xffffffffu);
  EXPECT_EQ(l.win(), 0u);
  EXPECT_EQ(l.rin() & ~0xffu, 0x100u);
  unlock_shared(l);
  EXPECT_TRUE(advance(w, l));
  release(w, l);
  expect_quiescent(l);
}

// A free lock is taken in one step, but only when free: not while a reader holds it, a writer
// holds it, or a writer has a ticket and waits.
TEST(ShmAsyncLock, FreeLockFastPathOnlyWhenFree) {
  shm::LockWords l{};
  AsyncLock w1 = exclusive_req();
  ASSERT_TRUE(advance(w1, l));
  EXPECT_EQ(l.win(), 1u);
  EXPECT_EQ(l.rin() & 0x3u, 0x2u);  // present, phase of ticket 0
  release(w1, l);
  expect_quiescent(l);
  AsyncLock r = shared_req(), w2 = exclusive_req();
  ASSERT_TRUE(advance(r, l));
  EXPECT_FALSE(advance(w2, l));  // a reader holds it
  EXPECT_EQ(w2.stage, Stage::kWriterReaders);
  AsyncLock w3 = exclusive_req();
  EXPECT_FALSE(advance(w3, l));  // a writer waits ahead of it
  EXPECT_EQ(w3.stage, Stage::kWriterTicket);
  release(r, l);
  EXPECT_TRUE(advance(w2, l));
  EXPECT_FALSE(advance(w3, l));
  release(w2, l);
  EXPECT_TRUE(advance(w3, l));
  release(w3, l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, ReleaseOfALockNotHeldDoesNothing) {
  shm::LockWords l{};
  AsyncLock idle = exclusive_req();
  release(idle, l);
  EXPECT_EQ(idle.stage, Stage::kIdle);
  expect_quiescent(l);
  EXPECT_EQ(l.win(), 0u);
}

TEST(ShmAsyncLock, MixesWithBlockingLockers) {
  shm::LockWords l{};
  lock_exclusive(l, nullptr);
  AsyncLock r = shared_req(), w = exclusive_req();
  EXPECT_FALSE(advance(r, l));
  EXPECT_FALSE(advance(w, l));
  unlock_exclusive(l);
  EXPECT_TRUE(advance(r, l));
  EXPECT_FALSE(advance(w, l));
  release(r, l);
  EXPECT_TRUE(advance(w, l));
  release(w, l);
  lock_shared(l, nullptr);  // would spin forever if the async writer had left anything behind
  unlock_shared(l);
  expect_quiescent(l);
}

TEST(ShmAsyncLock, ThreadsPollingAdvanceExcludeEachOther) {
  shm::LockWords l{};
  constexpr int kThreads = 4;
  constexpr int kIters = 2000;
  long counter = 0;
  std::atomic<int> writers{0}, readers{0}, violations{0};
  std::latch start(kThreads);  // every thread contends from its first iteration
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kIters; ++i) {
        AsyncLock a = (i + t) % 3 == 0 ? shared_req() : exclusive_req();
        while (!advance(a, l))
          sched_yield();
        if (a.type == MPI_LOCK_SHARED) {
          readers.fetch_add(1);
          if (writers.load() != 0) violations.fetch_add(1);
          readers.fetch_sub(1);
        } else {
          if (writers.fetch_add(1) != 0 || readers.load() != 0) violations.fetch_add(1);
          ++counter;
          writers.fetch_sub(1);
        }
        release(a, l);
      }
    });
  for (auto& t : ts)
    t.join();
  EXPECT_EQ(violations.load(), 0);
  long want = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kIters; ++i)
      want += (i + t) % 3 != 0;
  EXPECT_EQ(counter, want);
  expect_quiescent(l);
}

}  // namespace
}  // namespace osprey::rma::shm_lock
