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

// Each thread's last lookup, valid while the registry's generation is unchanged.
struct LastLookup {
  uint64_t key, gen;
  Window* w;
};
inline thread_local LastLookup last_lookup
    __attribute__((tls_model("initial-exec"))) = {~0ull, 0, nullptr};

// The window of h if it is this thread's last lookup, else null (a call's fast path: no
// registry access to keep registers for).
inline Window* cached_window(MPI_Win h) {
  const LastLookup& l = last_lookup;
  return l.key == handle_key(h) && l.gen == registry_generation.load(std::memory_order_acquire)
             ? l.w
             : nullptr;
}

// (A handle that names no window is searched again each time: only erroneous calls use one.)
inline Window* find_window(MPI_Win h) {
  if (Window* w = cached_window(h)) return w;
  const uint64_t k = handle_key(h);
  const uint64_t g = registry_generation.load(std::memory_order_acquire);  // before the search
  Window* w = registry().find(k);
  last_lookup = {k, g, w};
  return w;
}

}  // namespace osprey::rma
