#include "progress/sched_groups.h"

#include <unistd.h>

#include "util/proc_file.h"

namespace osprey::progress {
namespace {

bool lists_cpu_controller(std::string_view controllers) {
  while (!controllers.empty()) {
    const std::size_t comma = controllers.find(',');
    if (controllers.substr(0, comma) == "cpu") return true;
    if (comma == std::string_view::npos) break;
    controllers.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

CpuCgroup cpu_cgroup_of(std::string_view text) {
  CpuCgroup unified;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    // "hierarchy-id:controllers:path"
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(a + 1, b - a - 1);
    const std::string_view path = line.substr(b + 1);
    if (lists_cpu_controller(controllers)) return {std::string(path), true};
    if (line.substr(0, a) == "0" && controllers.empty()) unified.path = path;
  }
  return unified;
}

bool cpu_time_shared_by_session() {
  char buf[4096];
  if (read_small_file("/proc/sys/kernel/sched_autogroup_enabled", buf, sizeof buf) == 0 ||
      buf[0] != '1')
    return false;
  const std::size_t n = read_small_file("/proc/self/cgroup", buf, sizeof buf);
  const CpuCgroup group = cpu_cgroup_of(std::string_view(buf, n));
  if (group.path.empty() || group.path == "/") return true;
  if (group.v1) return false;
  // A unified (v2) cgroup other than the root still leaves CPU time to autogroup unless the cpu
  // controller is on for it, which gives it a cpu.weight file.
  const std::string weight = "/sys/fs/cgroup" + group.path + "/cpu.weight";
  return access(weight.c_str(), F_OK) != 0;
}

bool cpu_share_of_its_own() {
  return getsid(0) == getpid() && cpu_time_shared_by_session();
}

}  // namespace osprey::progress
