// Reading which cgroup accounts a process's CPU time from /proc/self/cgroup, for the check that
// tells whether the kernel groups CPU time by session (progress/sched_groups.h).
#include "progress/sched_groups.h"

#include <gtest/gtest.h>

namespace osprey::progress {
namespace {

TEST(SchedGroups, CgroupV1CpuControllerLine) {
  const CpuCgroup g =
      cpu_cgroup_of("4:memory:/job/7\n3:cpuset:/\n2:cpu,cpuacct:/slurm/uid_0/job_7\n0::/\n");
  EXPECT_EQ(g.path, "/slurm/uid_0/job_7");
  EXPECT_TRUE(g.v1);
}

TEST(SchedGroups, CpuacctAloneIsNotTheCpuController) {
  const CpuCgroup g = cpu_cgroup_of("2:cpuacct:/a\n1:cpu:/\n0::/b\n");
  EXPECT_EQ(g.path, "/");
  EXPECT_TRUE(g.v1);
}

TEST(SchedGroups, UnifiedHierarchyOnly) {
  const CpuCgroup g = cpu_cgroup_of("0::/user.slice/user-1000.slice/session-3.scope\n");
  EXPECT_EQ(g.path, "/user.slice/user-1000.slice/session-3.scope");
  EXPECT_FALSE(g.v1);
}

TEST(SchedGroups, NamedHierarchiesAndNoTrailingNewline) {
  const CpuCgroup g = cpu_cgroup_of("9:name=systemd:/x\n1:cpu:/ospreytest");
  EXPECT_EQ(g.path, "/ospreytest");
  EXPECT_TRUE(g.v1);
}

TEST(SchedGroups, NothingListed) {
  EXPECT_EQ(cpu_cgroup_of("").path, "");
  EXPECT_EQ(cpu_cgroup_of("garbage\n").path, "");
}

}  // namespace
}  // namespace osprey::progress
