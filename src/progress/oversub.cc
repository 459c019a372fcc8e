#include "progress/oversub.h"

#include <atomic>

#include "util/config.h"

namespace osprey::progress {
namespace {

std::atomic<bool> node_oversubscribed{false};

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

void note_oversubscribed(bool yes) {
  if (yes) node_oversubscribed.store(true, std::memory_order_relaxed);
}

void set_oversubscribed_for_tests(bool yes) {
  node_oversubscribed.store(yes, std::memory_order_relaxed);
}

bool oversubscribed() {
  return node_oversubscribed.load(std::memory_order_relaxed);
}

}  // namespace osprey::progress
