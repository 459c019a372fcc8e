// Oversubscription per communicator, and MPI_Barrier on shared memory for communicators on one
// node. The host's barrier (MPICH over UCX) busy-polls: with more ranks than CPUs, the ranks
// that arrived spin through their time slices while the rank they wait for has no CPU. The node
// barrier's waiters yield, or sleep on a futex that the last arrival wakes, so the CPU goes to
// the ranks that still have work; with one arrival counter, each waiter is released once per
// barrier. On a node with CPUs to spare it is simply cheaper than the host's barrier for few
// ranks, and RMA programs call MPI_Barrier between epochs.
#include <sched.h>

#include "progress/oversub.h"
#include "progress/sched_groups.h"
#include "rma/comm_info.h"
#include "rma/runtime.h"
#include "rma/served_ops.h"
#include "util/log.h"

namespace osprey::rma {

bool CommInfo::decide_oversubscription(const std::vector<CommNodeMember>& all) {
  const int node_ranks = static_cast<int>(all.size());
  std::vector<cpu_set_t> masks;
  masks.reserve(all.size());
  bool saw = false;
  for (const CommNodeMember& m : all) {
    masks.push_back(m.mask);
    saw |= m.saw_oversubscribed != 0;
  }
  const int cpus = progress::cpus_in_union(masks);
  // Every rank of the node computes the same; a process that already saw an oversubscribed
  // node (MPI_COMM_WORLD's setup) stays so, and the node agrees on that too.
  const bool yes = progress::decide_oversubscribed(node_ranks, cpus) || saw;
  progress::note_oversubscribed(yes, node_ranks, cpus);
  OSPREY_LOG(1, "%d ranks on this node, %d CPUs in their affinity masks: %s", node_ranks, cpus,
             yes ? "oversubscribed" : "not oversubscribed");
  // Two file reads per communicator: only when the line would be printed.
  if (yes && config().debug >= 1 && progress::cpu_share_of_its_own())
    OSPREY_LOG(1,
               "this rank leads its own session and the kernel shares CPU time out per session "
               "(autogroup): it gets an equal share of its CPU, waiting or working, and a waiting "
               "rank cannot pass its share to a working one (kernel.sched_autogroup_enabled=0, or "
               "the job in a CPU cgroup, lifts that)");
  return yes;
}

namespace {

// A rank blocked in MPI_Barrier still drives the host's progress: a peer may wait for one of
// this rank's sends (a rendezvous) before it can reach the barrier.
bool poke_host() {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return false;
}

}  // namespace

void CommInfo::node_barrier() {
  // Requests for this process's windows may arrive once any endpoint exists (a communicator
  // spanning nodes made after MPI_Init): then serve them, never sleep through them. So may
  // node peers' operations on its private memory (served_ops.h), which wait for it as long as
  // it takes a system call: a passive target often waits in a barrier while its origins work.
  const bool serve = progress::has_pollers() || any_served();
  barrier_.arrive_and_wait(0, serve ? progress::poll : nullptr, poke_host);
}

bool node_barrier(MPI_Comm c) {
  if (c == MPI_COMM_NULL || job_may_use_messages()) return false;
  CommInfo* ci = CommInfo::find(c);
  if (!ci || !ci->has_node_barrier()) return false;
  ci->node_barrier();
  return true;
}

}  // namespace osprey::rma
