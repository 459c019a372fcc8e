#include "progress/host_hook.h"

#include <dlfcn.h>

#include "progress/engine.h"
#include "util/log.h"

namespace osprey::progress {
namespace {

using Callback = int (*)();
using Registrar = int (*)(Callback);

bool registered = false;

// The host calls this from its progress loop, also from inside host calls osprey makes while
// it holds engine state: poll() then does nothing (progress/engine.h).
int callback() {
  return poll() ? 1 : 0;
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
