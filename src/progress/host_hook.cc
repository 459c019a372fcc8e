#include "progress/host_hook.h"

#include <dlfcn.h>

#include "progress/engine.h"
#include "util/log.h"

namespace osprey::progress {
namespace {

using Callback = int (*)();
using Registrar = int (*)(Callback);

thread_local bool inside = false;
bool registered = false;

// The host calls this from its progress loop; osprey's own waits call the host, which calls
// this again: the guard stops the recursion.
int callback() {
  if (inside) return 0;
  inside = true;
  const bool did = poll();
  inside = false;
  return did ? 1 : 0;
}

Registrar find(const char* name) {
  return reinterpret_cast<Registrar>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

bool register_host_hook() {
  if (registered) return true;
  Registrar reg = find("opal_progress_register");
  if (!reg || reg(callback) != 0) return false;
  registered = true;
  OSPREY_LOG(1, "registered with the host's progress loop (opal_progress_register)");
  return true;
}

void unregister_host_hook() {
  if (!registered) return;
  if (Registrar unreg = find("opal_progress_unregister")) unreg(callback);
  registered = false;
}

}  // namespace osprey::progress
