#include "progress/host_yield.h"

#include <dlfcn.h>

#include <atomic>

#include "util/log.h"

namespace osprey::progress {
namespace {

bool* host_flag = nullptr;  // set only if the host yields when idle
std::atomic<int> waits{0};  // threads in osprey's waits

// The host reads its flag as a plain bool; osprey's threads write it atomically among
// themselves. A thread that leaves the last wait while another enters may turn the yields
// back on for that wait: it then yields as before. The count's order (acquire-release) puts
// every wait's switching off before the switching on of the one that leaves last.
void set_host_flag(bool on) {
  std::atomic_ref<bool>(*host_flag).store(on, std::memory_order_relaxed);
}

}  // namespace

void find_host_yield() {
  auto* flag = static_cast<bool*>(dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle"));
  if (!flag || !*flag) return;
  host_flag = flag;
  OSPREY_LOG(1, "the host yields when idle: not inside osprey's waits");
}

HostYieldOff::HostYieldOff() : active_(host_flag != nullptr) {
  if (active_ && waits.fetch_add(1, std::memory_order_acq_rel) == 0) set_host_flag(false);
}

HostYieldOff::~HostYieldOff() {
  if (active_ && waits.fetch_sub(1, std::memory_order_acq_rel) == 1) set_host_flag(true);
}

}  // namespace osprey::progress
