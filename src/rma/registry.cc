#include "rma/registry.h"

namespace osprey::rma {

std::atomic<uint64_t> registry_generation{1};

void register_window(MPI_Win h, Window* w) {
  registry().insert(handle_key(h), w);
  registry_generation.fetch_add(1, std::memory_order_acq_rel);
}

void unregister_window(MPI_Win h, const Window* w) {
  registry().erase(handle_key(h), w);
  registry_generation.fetch_add(1, std::memory_order_acq_rel);
}

HandleMap<Window>& registry() {
  static auto* m = new HandleMap<Window>;  // lives until exit: calls may arrive after finalize
  return *m;
}

}  // namespace osprey::rma
