// The node barrier between real processes sharing an anonymous mapping.
#include "transport/shm/node_barrier.h"

#include <gtest/gtest.h>

#include <atomic>

#include "processes.h"

namespace osprey::shm {
namespace {

constexpr int kRounds = 200;

struct Shared {
  BarrierSlot slots[64];
  std::atomic<int> phase_count[kRounds];
  std::atomic<int> errors;
};

void run_processes(int procs) {
  ASSERT_LE(barrier_slot_count(procs), 64u);
  auto* s = test::map_shared<Shared>();
  ASSERT_NE(s, nullptr);
  test::run_in_processes(procs, [&](int p) {
    NodeBarrier b(s->slots, procs, p);
    for (int r = 0; r < kRounds; ++r) {
      s->phase_count[r].fetch_add(1);
      // Everyone contributes bit 0; only rank 0 contributes bit 1, in even rounds.
      const uint16_t bits = 1u | ((p == 0 && r % 2 == 0) ? 2u : 0u);
      BarrierResult res = b.arrive_and_wait(bits, nullptr);
      if (s->phase_count[r].load() != procs) s->errors.fetch_add(1);
      const uint32_t want_any = (r % 2 == 0) ? 3u : 1u, want_all = procs == 1 ? want_any : 1u;
      if (res.all != want_all || res.any != want_any) s->errors.fetch_add(1);
    }
  });
  EXPECT_EQ(s->errors.load(), 0);
  test::unmap_shared(s);
}

TEST(NodeBarrier, OneProcess) {
  run_processes(1);
}
TEST(NodeBarrier, TwoProcesses) {
  run_processes(2);
}
TEST(NodeBarrier, ThreeProcesses) {
  run_processes(3);
}
TEST(NodeBarrier, FiveProcessesOutnumberCores) {
  run_processes(5);
}

}  // namespace
}  // namespace osprey::shm
