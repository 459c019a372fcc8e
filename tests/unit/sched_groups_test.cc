// Reading which cgroup accounts a process's CPU time from /proc/self/cgroup, for the check that
// tells whether the kernel groups CPU time by session (progress/sched_groups.h).
#include "progress/sched_groups.h"

#include <gtest/gtest.h>

namespace osprey::progress {
namespace {

struct Case {
  const char* what;
  const char* text;  // /proc/self/cgroup
  const char* path;  // the cgroup expected
  bool v1;           // from a cgroup-v1 cpu line
};

TEST(SchedGroups, CpuCgroupOf) {
  const Case cases[] = {
      {"the v1 line that lists cpu among others",
       "4:memory:/job/7\n3:cpuset:/\n2:cpu,cpuacct:/slurm/uid_0/job_7\n0::/\n",
       "/slurm/uid_0/job_7", true},
      {"cpuacct alone is not the cpu controller", "2:cpuacct:/a\n1:cpu:/\n0::/b\n", "/", true},
      {"the unified hierarchy alone", "0::/user.slice/user-1000.slice/session-3.scope\n",
       "/user.slice/user-1000.slice/session-3.scope", false},
      {"named hierarchies, no final newline", "9:name=systemd:/x\n1:cpu:/ospreytest", "/ospreytest",
       true},
      {"nothing", "", "", false},
      {"no hierarchy lines", "garbage\n", "", false},
  };
  for (const Case& c : cases) {
    const CpuCgroup g = cpu_cgroup_of(c.text);
    EXPECT_EQ(g.path, c.path) << c.what;
    EXPECT_EQ(g.v1, c.v1) << c.what;
  }
}

}  // namespace
}  // namespace osprey::progress
