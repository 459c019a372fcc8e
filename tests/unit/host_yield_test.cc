// Open MPI's idle yields are off while a thread is in one of osprey's waits, and back on once
// the last wait ends (progress/host_yield.h). The host's switch is stood in for by a flag of
// this program's own, which dlsym finds because the test program exports its symbols.
#include "progress/host_yield.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "progress/backoff.h"

extern "C" {
// The stand-in for Open MPI's switch, on as Open MPI sets it on an oversubscribed node.
__attribute__((visibility("default"))) bool opal_progress_yield_when_idle = true;
}

namespace osprey::progress {
namespace {

bool host_yields() {
  return std::atomic_ref<bool>(opal_progress_yield_when_idle).load();
}

TEST(HostYield, OffInsideWaitsAndBackAfterTheLast) {
  find_host_yield();
  ASSERT_TRUE(host_yields());
  {
    Backoff outer;
    EXPECT_FALSE(host_yields());
    {
      Backoff inner;
      EXPECT_FALSE(host_yields());
    }
    EXPECT_FALSE(host_yields()) << "an inner wait's end turned the yields back on";
  }
  EXPECT_TRUE(host_yields());
}

TEST(HostYield, ThreadsWaitingAtOnceLeaveItOn) {
  find_host_yield();
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      while (!go.load())
        std::this_thread::yield();
      for (int i = 0; i < 20000; ++i) {
        Backoff b;
        b.pause();
      }
    });
  go.store(true);
  for (std::thread& t : threads)
    t.join();
  EXPECT_TRUE(host_yields()) << "the yields stayed off after every wait ended";
}

}  // namespace
}  // namespace osprey::progress
