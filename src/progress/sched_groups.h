// Whether the kernel shares CPU time out per session rather than per process (autogroup), with
// this process leading a session of its own. MPICH's launcher (Hydra) starts every rank that
// way; Open MPI's starts all of a node's ranks in one session. Then each rank gets an equal share
// of a CPU whatever it does: a waiting rank's sched_yield passes the CPU among the waiters of
// its CPU but cannot give a working rank more than its share, and a waiter that sleeps and is
// woken starts behind. Measured at 8 ranks on 2 CPUs, with osprey under MPICH: posting puts
// while seven ranks wait took 33-39 ns per put, and 9.6-10.2 ns with autogroup switched off or
// the job in a CPU cgroup of its own (the kernel does not group by session there).
#pragma once

#include <string>
#include <string_view>

namespace osprey::progress {

// The cgroup that accounts this process's CPU time, from the text of /proc/self/cgroup: the
// path on the cgroup-v1 line that lists the cpu controller (v1 set), else the path on the
// unified hierarchy's "0::" line; an empty path if there is neither.
struct CpuCgroup {
  std::string path;
  bool v1 = false;
};
CpuCgroup cpu_cgroup_of(std::string_view proc_self_cgroup);

// Whether the kernel shares this process's CPU time out per session: kernel.sched_autogroup_enabled
// is 1 and the process's CPU-time cgroup is the root one (autogroup only applies there).
bool cpu_time_shared_by_session();

// That, and this process leads a session of its own (as every rank Hydra starts does).
bool cpu_share_of_its_own();

}  // namespace osprey::progress
