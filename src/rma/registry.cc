#include "rma/registry.h"

namespace osprey::rma {

HandleMap<Window>& registry() {
  static auto* m = new HandleMap<Window>;  // lives until exit: calls may arrive after finalize
  return *m;
}

}  // namespace osprey::rma
