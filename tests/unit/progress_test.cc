// Where progress may run (progress/engine.h): never on a thread that holds engine state, and
// from the low-level waits only through the `idle` their caller passes.
#include "progress/engine.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "rma/shm_lock.h"

namespace osprey::progress {
namespace {

std::atomic<int> polls{0};
bool counting_poller() {
  polls.fetch_add(1);
  return false;
}

// Registered once for the whole binary (pollers are never removed).
void ensure_poller() {
  static std::once_flag once;
  std::call_once(once, [] { add_poller(counting_poller); });
}

TEST(Progress, RunsAtASafePoint) {
  ensure_poller();
  const int before = polls.load();
  poll();
  EXPECT_EQ(polls.load(), before + 1);
}

TEST(Progress, DoesNothingWhileAnEngineLockIsHeld) {
  ensure_poller();
  EngineMutex m;
  const int before = polls.load();
  {
    EngineLock g(m);
    EXPECT_FALSE(poll());
    EXPECT_EQ(polls.load(), before);
    g.unlock();  // a wait that released its lock is a safe point again
    poll();
    EXPECT_EQ(polls.load(), before + 1);
    g.lock();
    poll();
    EXPECT_EQ(polls.load(), before + 1);
  }
  poll();
  EXPECT_EQ(polls.load(), before + 2);
}

TEST(Progress, DoesNothingInsideAnEngineSectionNested) {
  ensure_poller();
  EngineMutex m;
  const int before = polls.load();
  {
    EngineSection handling;
    EngineLock g(m);
    g.unlock();  // still inside the section: requests are being handled here
    poll();
    EXPECT_EQ(polls.load(), before);
  }
  poll();
  EXPECT_EQ(polls.load(), before + 1);
}

TEST(Progress, EngineStateIsPerThread) {
  ensure_poller();
  EngineMutex m;
  EngineLock g(m);
  const int before = polls.load();
  std::thread other([] { poll(); });
  other.join();
  EXPECT_EQ(polls.load(), before + 1);
}

// A lock-word wait runs exactly the idle it was given: here the idle is what releases the
// lock, as a served unlock request would.
shm::LockWords* held_words = nullptr;
int idle_rounds = 0;
bool release_after_three() {
  if (++idle_rounds == 3) rma::shm_lock::unlock_exclusive(*held_words);
  return true;
}

TEST(Progress, LockWaitRunsItsIdle) {
  shm::LockWords l{};
  held_words = &l;
  idle_rounds = 0;
  rma::shm_lock::lock_exclusive(l, nullptr);
  rma::shm_lock::lock_shared(l, release_after_three);  // would never return without the idle
  EXPECT_EQ(idle_rounds, 3);
  rma::shm_lock::unlock_shared(l);
}

TEST(Progress, WaitsWithoutIdleNeverPoll) {
  ensure_poller();
  shm::LockWords l{};
  rma::shm_lock::lock_exclusive(l, nullptr);
  const int before = polls.load();
  std::thread holder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    rma::shm_lock::unlock_exclusive(l);
  });
  rma::shm_lock::lock_exclusive(l, nullptr);
  holder.join();
  EXPECT_EQ(polls.load(), before);
  rma::shm_lock::unlock_exclusive(l);
}

TEST(Progress, EngineMutexExcludesThreadsAndReentry) {
  EngineMutex m;
  ASSERT_TRUE(concurrent_threads.load());  // until MPI_Init says otherwise
  m.lock();
  std::thread blocked([&] { EXPECT_FALSE(m.try_lock()); });
  blocked.join();
  m.unlock();
  // One thread in the engine at a time (the program orders its calls): no atomics at all, but
  // a host callback re-entering while the lock is held (Open MPI's progress hook) is refused.
  set_concurrent(false);
  m.lock();
  EXPECT_FALSE(m.try_lock());
  m.unlock();
  EXPECT_TRUE(m.try_lock());
  m.unlock();
  set_concurrent(true);
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

}  // namespace
}  // namespace osprey::progress
