// Oversubscription: the decision from affinity masks, and the doorbell protocol waits sleep on
// when ranks outnumber CPUs (no lost wake-up, between processes and through Backoff).
#include "progress/oversub.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "processes.h"
#include "progress/backoff.h"
#include "progress/doorbell.h"
#include "rma/shm_lock.h"
#include "transport/shm/central_barrier.h"
#include "transport/shm/node_barrier.h"
#include "util/config.h"

namespace osprey::progress {
namespace {

cpu_set_t mask_of(std::initializer_list<int> cpus) {
  cpu_set_t m;
  CPU_ZERO(&m);
  for (int c : cpus)
    CPU_SET(c, &m);
  return m;
}

TEST(Oversub, CpusInTheUnionOfMasks) {
  const cpu_set_t two[] = {mask_of({0, 1}), mask_of({1, 2})};
  EXPECT_EQ(cpus_in_union(two), 3);
  const cpu_set_t same[] = {mask_of({1}), mask_of({1}), mask_of({1})};
  EXPECT_EQ(cpus_in_union(same), 1);
  EXPECT_EQ(cpus_in_union({}), 0);
}

TEST(Oversub, DecisionFromRanksAndCpusOrForced) {
  unsetenv("OSPREY_OVERSUBSCRIBED");
  reload_config_for_tests();
  EXPECT_TRUE(decide_oversubscribed(3, 2));
  EXPECT_TRUE(decide_oversubscribed(8, 2));
  EXPECT_FALSE(decide_oversubscribed(2, 2));
  EXPECT_FALSE(decide_oversubscribed(1, 64));
  EXPECT_FALSE(decide_oversubscribed(4, 0));  // masks unknown: no claim
  setenv("OSPREY_OVERSUBSCRIBED", "1", 1);
  reload_config_for_tests();
  EXPECT_TRUE(decide_oversubscribed(2, 64));
  setenv("OSPREY_OVERSUBSCRIBED", "0", 1);
  reload_config_for_tests();
  EXPECT_FALSE(decide_oversubscribed(8, 2));
  unsetenv("OSPREY_OVERSUBSCRIBED");
  reload_config_for_tests();
}

TEST(Oversub, ThisProcessCountsItsOwnCpus) {
  cpu_set_t m;
  ASSERT_EQ(sched_getaffinity(0, sizeof m, &m), 0);
  const cpu_set_t one[] = {m};
  EXPECT_EQ(cpus_in_union(one), CPU_COUNT(&m));
  EXPECT_GE(cpus_in_union(one), 1);
}

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr long kSafetyNs = 2'000'000'000;  // a lost wake-up shows as a sleep this long
constexpr int kRounds = 20000;

struct PingPong {
  std::atomic<uint32_t> turn;  // even: process 0 may move, odd: process 1
  Doorbell bell[2];            // bell[p]: process p sleeps on it
  std::atomic<int> long_sleeps;
};

// Two processes hand a turn back and forth; each waits by going straight to sleep on its
// doorbell (no spinning, so every round races the sleeper against the ring).
TEST(Doorbell, NoLostWakeUpBetweenProcesses) {
  auto* s = test::map_shared<PingPong>();
  ASSERT_NE(s, nullptr);
  test::run_in_processes(2, [&](int p) {
    for (uint32_t r = static_cast<uint32_t>(p); r < 2 * kRounds; r += 2) {
      auto mine = [&] { return s->turn.load(std::memory_order_acquire) == r; };
      while (!mine()) {
        if (s->long_sleeps.load() != 0) _exit(1);  // already failed: stop both
        const double t0 = now_s();
        sleep_on(s->bell[p], mine, kSafetyNs);
        if (now_s() - t0 > 1.0) s->long_sleeps.fetch_add(1);
      }
      s->turn.store(r + 1, std::memory_order_release);
      ring(s->bell[1 - p]);
    }
  });
  EXPECT_EQ(s->turn.load(), 2u * kRounds);
  EXPECT_EQ(s->long_sleeps.load(), 0) << "a ring was lost: a sleeper waited for its timeout";
  test::unmap_shared(s);
}

// The same through Backoff on an oversubscribed node, between threads, with the ring after a
// read-modify-write (as PSCW's post and complete do). Backoff's sleeps end after 20 ms at the
// latest, so a lost ring shows as pauses that long: a few may come from a loaded machine, a
// lost ring makes thousands.
TEST(Doorbell, BackoffSleepsAndIsWokenWhenOversubscribed) {
  constexpr int kTolerated = 50;
  set_oversubscribed_for_tests(true);
  PingPong s{};
  auto player = [&](uint32_t p) {
    for (uint32_t r = static_cast<uint32_t>(p); r < 2 * kRounds; r += 2) {
      auto mine = [&] { return s.turn.load(std::memory_order_acquire) == r; };
      Backoff b;
      while (!mine()) {
        if (s.long_sleeps.load() >= kTolerated) return;  // already failed: stop both
        const double t1 = now_s();
        b.pause_on(s.bell[p], mine);
        if (now_s() - t1 > 0.015) s.long_sleeps.fetch_add(1);
      }
      s.turn.fetch_add(1, std::memory_order_acq_rel);
      ring_after_rmw(s.bell[1 - p]);
    }
  };
  std::thread a(player, 0u), b(player, 1u);
  a.join();
  b.join();
  set_oversubscribed_for_tests(false);
  EXPECT_LT(s.long_sleeps.load(), kTolerated) << "rings were lost: sleepers waited for timeouts";
  if (s.long_sleeps.load() < kTolerated) {
    EXPECT_EQ(s.turn.load(), 2u * kRounds);
  }
}

// Lock words under oversubscription: every release rings, so writers that sleep in turn keep
// mutual exclusion and all finish.
TEST(Doorbell, LockWaitersSleepAndExcludeEachOther) {
  set_oversubscribed_for_tests(true);
  shm::LockWords l{};
  long counter = 0;
  std::atomic<int> inside{0}, overlaps{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        if ((i + t) % 3 == 0) {
          rma::shm_lock::lock_shared(l, nullptr);
          if (inside.load() < 0) overlaps.fetch_add(1);
          rma::shm_lock::unlock_shared(l);
          continue;
        }
        rma::shm_lock::lock_exclusive(l, nullptr);
        if (inside.exchange(-1) != 0) overlaps.fetch_add(1);
        ++counter;
        inside.store(0);
        rma::shm_lock::unlock_exclusive(l);
      }
    });
  for (auto& t : ts)
    t.join();
  set_oversubscribed_for_tests(false);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(counter, 4 * 2000);
}

// The node barrier between more processes than this test machine may have CPUs, waiting the
// oversubscribed way (few spins, then futex sleeps the arrivals wake).
TEST(Oversub, NodeBarrierOfFiveProcessesSleepingWaiters) {
  struct Shared {
    shm::BarrierSlot slots[64];
    std::atomic<int> arrived[500];
    std::atomic<int> errors;
  };
  auto* s = test::map_shared<Shared>();
  ASSERT_NE(s, nullptr);
  constexpr int kProcs = 5;
  ASSERT_LE(shm::barrier_slot_count(kProcs), 64u);
  set_oversubscribed_for_tests(true);
  test::run_in_processes(kProcs, [&](int p) {
    shm::NodeBarrier b(s->slots, kProcs, static_cast<uint32_t>(p));
    for (int r = 0; r < 500; ++r) {
      s->arrived[r].fetch_add(1);
      b.arrive_and_wait(0, nullptr);
      if (s->arrived[r].load() != kProcs) s->errors.fetch_add(1);
    }
  });
  set_oversubscribed_for_tests(false);
  EXPECT_EQ(s->errors.load(), 0);
  test::unmap_shared(s);
}

// The central barrier of oversubscribed nodes (MPI_Barrier, fence): nobody leaves a barrier
// before everyone arrived, what a rank wrote before it is seen by all after it (each rank
// writes its own word, then checks everyone's), and the OR and AND of the ranks' flags come
// out right, over many barriers with sleeping waiters.
TEST(Oversub, CentralBarrierOfFiveProcesses) {
  constexpr int kProcs = 5, kBarriers = 2000;
  struct Shared {
    shm::CentralBarrierWords words;
    std::atomic<int> arrived[kBarriers];
    long value[kProcs];  // plain: ordered by the barrier alone
    std::atomic<int> errors;
  };
  auto* s = test::map_shared<Shared>();
  ASSERT_NE(s, nullptr);
  set_oversubscribed_for_tests(true);
  test::run_in_processes(kProcs, [&](int p) {
    shm::CentralBarrier b(&s->words, kProcs);
    for (int r = 0; r < kBarriers; ++r) {
      s->arrived[r].fetch_add(1, std::memory_order_relaxed);
      s->value[p] = r;
      // Everyone contributes bit 0; only rank p == r % kProcs bit 1 + bit (2 + r % 3).
      const uint16_t bits =
          static_cast<uint16_t>(1u | (p == r % kProcs ? 2u | (4u << (r % 3)) : 0u));
      const shm::BarrierResult res = b.arrive_and_wait(bits, nullptr);
      if (s->arrived[r].load(std::memory_order_relaxed) != kProcs) s->errors.fetch_add(1);
      for (int q = 0; q < kProcs; ++q)
        if (s->value[q] != r) s->errors.fetch_add(1);
      if (res.any != (3u | (4u << (r % 3))) || res.all != 1u) s->errors.fetch_add(1);
      b.arrive_and_wait(0, nullptr);  // nobody writes the next value before all have checked
    }
  });
  set_oversubscribed_for_tests(false);
  EXPECT_EQ(s->errors.load(), 0);
  test::unmap_shared(s);
}

}  // namespace
}  // namespace osprey::progress
