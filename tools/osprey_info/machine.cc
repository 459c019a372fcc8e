#include "machine.h"

#include <sched.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cma_probe.h"
#include "progress/oversub.h"
#include "progress/sched_groups.h"
#include "util/config.h"

namespace osprey::info {
namespace {

void print_cma() {
  const CmaVerdict v = probe_cma();
  std::printf("  %-22s%s: %s\n", "cross-memory attach", v.allowed ? "allowed" : "not allowed",
              v.detail.c_str());
  const int scope = ptrace_scope();
  const char* scope_meaning = scope == 0   ? "any process of the same user may attach"
                              : scope == 1 ? "restricted; osprey's ranks allow each other"
                              : scope == 2 ? "only with CAP_SYS_PTRACE"
                              : scope == 3 ? "no process may attach"
                                           : "unknown value";
  if (scope >= 0)
    std::printf("  %-22sYama ptrace_scope %d (%s)\n", "", scope, scope_meaning);
  else
    std::printf("  %-22sno Yama ptrace_scope\n", "");
  if (!config().cma) std::printf("  %-22sturned off by OSPREY_CMA=0\n", "");
  if (!v.allowed || !config().cma)
    std::printf("  %-22sMPI_Win_create and dynamic windows reach node peers by messages\n", "");
}

void print_dev_shm() {
  struct statvfs s;
  if (statvfs("/dev/shm", &s) != 0) {
    std::printf("  %-22snot available (node segments go to memory files)\n", "/dev/shm");
    return;
  }
  const double gib = 1024.0 * 1024.0 * 1024.0;
  std::printf(
      "  %-22s%.1f GiB free of %.1f GiB (a segment that does not fit goes to a memory "
      "file)\n",
      "/dev/shm", static_cast<double>(s.f_bavail) * static_cast<double>(s.f_frsize) / gib,
      static_cast<double>(s.f_blocks) * static_cast<double>(s.f_frsize) / gib);
}

void print_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const int in_mask = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : 0;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  std::printf("  %-22s%d in this process's affinity mask, %ld online\n", "CPUs", in_mask, online);

  // The same decision osprey makes at MPI_Init, from the union of the node's ranks' masks
  // (here: this process's mask alone).
  const bool at_cpus = progress::decide_oversubscribed(in_mask, in_mask);
  const bool above_cpus = progress::decide_oversubscribed(in_mask + 1, in_mask);
  std::string when;
  if (at_cpus)
    when = "always (OSPREY_OVERSUBSCRIBED=1)";
  else if (!above_cpus)
    when = in_mask > 0 ? "never (OSPREY_OVERSUBSCRIBED=0)" : "never (affinity mask unknown)";
  else
    when = "with more than " + std::to_string(in_mask) + " ranks on a node whose ranks share " +
           "this mask";
  std::printf("  %-22s%s\n", "oversubscribed", when.c_str());
  // Why ranks that wait may still take their full share of an oversubscribed CPU.
  if (progress::cpu_time_shared_by_session())
    std::printf("  %-22s%s\n%-24s%s\n", "CPU time",
                "shared out per session (autogroup): ranks started in sessions of their own", "",
                "(MPICH's mpiexec does so) get equal shares of a CPU, waiting or working");
  else
    std::printf("  %-22s%s\n", "CPU time", "shared out per process");
}

}  // namespace

void print_machine() {
  std::printf("machine:\n");
  print_cma();
  print_dev_shm();
  print_cpus();
}

}  // namespace osprey::info
