// Anchor handle -> osprey window, looked up on every RMA call without locks.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "util/handle_key.h"
#include "util/handle_map.h"

namespace osprey::rma {

class Window;

HandleMap<Window>& registry();

// Bumped on every insert and erase, so that per-thread caches of the last lookup know when
// they may be stale.
extern std::atomic<uint64_t> registry_generation;

void register_window(MPI_Win h, Window* w);
// Only while h still names w: once the host freed the anchor, another thread's new window may
// have its handle.
void unregister_window(MPI_Win h, const Window* w);

inline Window* find_window(MPI_Win h) {
  struct Last {
    uint64_t key, gen;
    Window* w;
  };
  static thread_local Last last __attribute__((tls_model("initial-exec"))) = {~0ull, 0, nullptr};
  const uint64_t k = handle_key(h);
  const uint64_t g = registry_generation.load(std::memory_order_acquire);
  if (last.key == k && last.gen == g) return last.w;
  Window* w = registry().find(k);
  last = {k, g, w};
  return w;
}

}  // namespace osprey::rma
