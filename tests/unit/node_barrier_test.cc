// The node barrier between real processes sharing an anonymous mapping.
#include "transport/shm/node_barrier.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace osprey::shm {
namespace {

struct Shared {
  BarrierState barrier;
  std::atomic<int> phase_count[64];
  std::atomic<int> errors;
};

TEST(NodeBarrier, ProcessesMoveInLockstepAndReduceFlags) {
  constexpr int kProcs = 3, kRounds = 64;
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* s = new (mem) Shared{};
  pid_t kids[kProcs];
  for (int p = 0; p < kProcs; ++p) {
    kids[p] = fork();
    if (kids[p] == 0) {
      for (int r = 0; r < kRounds; ++r) {
        s->phase_count[r].fetch_add(1);
        // Rank p contributes bit 1 always, bit 2 only in even rounds for p == 0.
        const uint32_t bits = 1u | ((p == 0 && r % 2 == 0) ? 2u : 0u);
        BarrierResult res = node_barrier(s->barrier, kProcs, bits);
        if (s->phase_count[r].load() != kProcs) s->errors.fetch_add(1);
        if (res.all != 1u || res.any != ((r % 2 == 0) ? 3u : 1u)) s->errors.fetch_add(1);
      }
      _exit(0);
    }
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  EXPECT_EQ(s->errors.load(), 0);
  munmap(mem, sizeof(Shared));
}

}  // namespace
}  // namespace osprey::shm
