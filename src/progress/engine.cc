#include "progress/engine.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace osprey::progress {
namespace {

constexpr int kMaxPollers = 8;
std::atomic<Poller> pollers[kMaxPollers];
std::atomic<int> npollers{0};

}  // namespace

void add_poller(Poller p) {
  for (int i = 0; i < npollers.load(std::memory_order_acquire); ++i)
    if (pollers[i].load(std::memory_order_relaxed) == p) return;
  const int i = npollers.load(std::memory_order_relaxed);
  if (i == kMaxPollers) {
    std::fprintf(stderr, "osprey: internal error: too many progress pollers\n");
    std::abort();
  }
  pollers[i].store(p, std::memory_order_relaxed);
  npollers.store(i + 1, std::memory_order_release);
}

bool poll() {
  bool did = false;
  const int n = npollers.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    did |= pollers[i].load(std::memory_order_relaxed)();
  return did;
}

}  // namespace osprey::progress
