#include "progress/oversub.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "util/clock.h"
#include "util/config.h"
#include "util/proc_file.h"

namespace osprey::progress {
namespace {

std::atomic<bool> node_oversubscribed{false};
std::atomic<int> ranks_on_node{0};
std::atomic<int> cpus_of_node{0};
// Until when waits take the machine as crowded, after note_slow_yield found it so.
std::atomic<uint64_t> crowded_until_ns{0};
constexpr uint64_t kCrowdHoldNs = 100'000'000;
constexpr uint64_t kSlowYieldReadNs = 1'000'000;  // /proc/loadavg at most this often for them

// The machine's runnable tasks (the fourth field of /proc/loadavg, "running/total"), or -1.
int runnable_tasks() {
  char buf[128];
  if (read_small_file("/proc/loadavg", buf, sizeof buf) == 0) return -1;
  const char* p = buf;
  for (int field = 0; field < 3 && p; ++field) {
    p = std::strchr(p, ' ');
    if (p) ++p;
  }
  return p ? std::atoi(p) : -1;
}

}  // namespace

int cpus_in_union(std::span<const cpu_set_t> masks) {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (const cpu_set_t& m : masks)
    CPU_OR(&all, &all, &m);
  return CPU_COUNT(&all);
}

bool decide_oversubscribed(int node_ranks, int cpus) {
  return switched_on(config().oversubscribed, cpus > 0 && node_ranks > cpus);
}

void note_oversubscribed(bool yes, int node_ranks, int cpus) {
  if (yes) node_oversubscribed.store(true, std::memory_order_relaxed);
  if (node_ranks > ranks_on_node.load(std::memory_order_relaxed)) {
    ranks_on_node.store(node_ranks, std::memory_order_relaxed);
    cpus_of_node.store(cpus, std::memory_order_relaxed);
  }
}

bool yield_reaches_peers() {
  const int ranks = ranks_on_node.load(std::memory_order_relaxed);
  const int cpus = cpus_of_node.load(std::memory_order_relaxed);
  if (ranks <= 0 || cpus <= 0) return false;  // unknown
  static std::atomic<uint64_t> next_read_ns{0};
  static std::atomic<bool> crowded{false};
  const uint64_t t = monotonic_ns();
  if (t < crowded_until_ns.load(std::memory_order_relaxed)) return false;
  if (t >= next_read_ns.load(std::memory_order_relaxed)) {
    next_read_ns.store(t + 10'000'000, std::memory_order_relaxed);
    crowded.store(runnable_tasks() >= 2 * ranks, std::memory_order_relaxed);
  }
  return !crowded.load(std::memory_order_relaxed);
}

bool note_slow_yield(uint64_t now) {
  // Only outsiders count: the node's own ranks take whole slices too while they spin in a host
  // MPI call, and sleeping would not hand them the CPU sooner. One more task than the ranks is
  // let pass: a passing kernel thread, or the launcher, must not send every wait to sleep.
  static std::atomic<uint64_t> next_read_ns{0};
  if (now < next_read_ns.load(std::memory_order_relaxed)) return false;
  next_read_ns.store(now + kSlowYieldReadNs, std::memory_order_relaxed);
  if (runnable_tasks() <= ranks_on_node.load(std::memory_order_relaxed) + 1) return false;
  crowded_until_ns.store(now + kCrowdHoldNs, std::memory_order_relaxed);
  return true;
}

void set_oversubscribed_for_tests(bool yes) {
  node_oversubscribed.store(yes, std::memory_order_relaxed);
}

bool oversubscribed() {
  return node_oversubscribed.load(std::memory_order_relaxed);
}

}  // namespace osprey::progress
