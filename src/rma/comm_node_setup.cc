// Where a communicator's ranks live: which share this node, their processes and CPUs, whether
// cross-memory attach reaches them, and the node barrier's shared words. MPI_COMM_WORLD's setup
// splits by node and gathers once, and keeps every world rank's node; a later communicator of
// world processes reads its node from that, without the host's split (whose blocking
// collectives cost about 40 ms at 3 ranks on 2 CPUs, a window on a new communicator 95 ms).
#include <unistd.h>

#include <numeric>
#include <unordered_map>

#include "progress/liveness.h"
#include "progress/node_waiters.h"
#include "progress/oversub.h"
#include "rma/agree.h"
#include "rma/comm_info.h"
#include "rma/runtime.h"
#include "transport/shm/cma.h"
#include "util/config.h"
#include "util/host_call.h"

namespace osprey::rma {
namespace {

// A word every process exposes, so that a node peer can test cross-memory attach on it.
volatile uint64_t cma_probe_word = 0x6f73707265790000ull;

// What MPI_COMM_WORLD's setup learned, written once inside MPI_Init and only read afterwards.
struct WorldNodes {
  bool known = false;
  std::vector<int> node_of;  // world rank -> world rank of its node's first member
  std::unordered_map<int, CommNodeMember> members;  // this node's, by world rank
  bool cma_ok = false;
  bool oversubscribed = false;
};

WorldNodes& world_nodes() {
  static auto* w = new WorldNodes;  // lives until exit
  return *w;
}

// The node root's word to its members: whether a shared segment exists, its name.
struct SegmentAnnounce {
  int32_t created;
  int32_t pad;
  shm::SegmentName name;
};

// Creates a zeroed segment of `bytes` on rank `root` of `c` (all of one node) and maps it on
// every rank; collective over `c`. *shared is false on every rank if any rank failed to.
Status share_node_segment(MPI_Comm c, int root, std::size_t bytes, shm::Segment& seg,
                          bool* shared) {
  int rank = 0;
  PMPI_Comm_rank(c, &rank);
  SegmentAnnounce a{};
  if (rank == root) a.created = shm::Segment::create(bytes, seg, a.name).ok() ? 1 : 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = finish_collective(PMPI_Ibcast(&a, sizeof a, MPI_BYTE, root, c, &req), &req);
  int ok = rc == MPI_SUCCESS && a.created;
  if (ok && rank != root) ok = shm::Segment::attach(a.name, bytes, seg).ok() ? 1 : 0;
  if (rc == MPI_SUCCESS)
    rc = finish_collective(PMPI_Iallreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c, &req),
                           &req);  // also: everyone has mapped it
  if (rank == root && a.created) shm::Segment::unlink(a.name);
  *shared = rc == MPI_SUCCESS && ok;
  if (!*shared) seg = shm::Segment();
  return host_call(rc, "osprey: the host failed to share a node segment");
}

}  // namespace

Status CommInfo::gather_node(MPI_Comm node, const CommNodeMember& me,
                             std::vector<CommNodeMember>& all) {
  int n = 0;
  PMPI_Comm_size(node, &n);
  all.assign(static_cast<size_t>(n), CommNodeMember{});
  MPI_Request req = MPI_REQUEST_NULL;
  return host_call(finish_collective(PMPI_Iallgather(&me, sizeof me, MPI_BYTE, all.data(),
                                                     sizeof me, MPI_BYTE, node, &req),
                                     &req),
                   "osprey: the host failed to gather the node's processes");
}

void CommInfo::note_members(const std::vector<CommNodeMember>& all) {
  node_size_ = static_cast<int>(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].rank == rank_) node_rank_ = static_cast<int>(i);
    node_ranks_.push_back(all[i].rank);
    node_pids_.push_back(all[i].pid);
    progress::watch_peer(all[i].pid, all[i].world_rank);
  }
}

Status CommInfo::setup_by_split(bool world) {
  MPI_Comm node = MPI_COMM_NULL;
  OSPREY_TRY(
      host_call(PMPI_Comm_split_type(priv_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
                "osprey: the host cannot split this communicator by node"));
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  CommNodeMember me{};
  me.rank = rank_;
  me.pid = static_cast<int32_t>(getpid());
  me.world_rank = world_rank;
  me.saw_oversubscribed = progress::oversubscribed() ? 1 : 0;
  me.probe_addr = reinterpret_cast<uint64_t>(const_cast<uint64_t*>(&cma_probe_word));
  if (sched_getaffinity(0, sizeof me.mask, &me.mask) != 0) CPU_ZERO(&me.mask);  // no CPUs
  std::vector<CommNodeMember> all;
  if (config().virtual_nodes > 1) {
    // Tests only: pretend the node is several nodes, so that node peers in other "nodes"
    // are reached by messages while the others share memory. Oversubscription is the real
    // node's.
    Status s = gather_node(node, me, all);
    if (s.ok()) oversubscribed_ = decide_oversubscription(all);
    MPI_Comm part = MPI_COMM_NULL;
    const int rc = s.ok() ? PMPI_Comm_split(node, virtual_node(), rank_, &part) : MPI_SUCCESS;
    PMPI_Comm_free(&node);
    OSPREY_TRY(s);
    OSPREY_TRY(host_call(rc, "osprey: the host cannot split this communicator by node"));
    node = part;
  }
  int n = 0;
  PMPI_Comm_size(node, &n);

  // One gather tells every node member the others' processes and CPUs. Every member calls
  // allow_attach before it contributes: once the gather is done, each may probe the next.
  const bool cma_wanted = config().cma && n > 1;
  if (cma_wanted) shm::cma::allow_attach();
  const Status gathered = gather_node(node, me, all);
  if (!gathered.ok()) {
    PMPI_Comm_free(&node);
    return gathered;
  }
  if (config().virtual_nodes <= 1) oversubscribed_ = decide_oversubscription(all);
  note_members(all);

  // Cross-memory attach is usable if every rank can read its successor's probe word.
  int ok = config().cma ? 1 : 0;
  if (cma_wanted) {
    const CommNodeMember& next = all[static_cast<size_t>((node_rank_ + 1) % node_size_)];
    ok = shm::cma::probe(next.pid, reinterpret_cast<void*>(next.probe_addr), sizeof(uint64_t));
  }
  MPI_Request req = MPI_REQUEST_NULL;
  const int agreed =
      finish_collective(PMPI_Iallreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node, &req), &req);
  // The node's count of waiting ranks (progress/node_waiters.h), kept by the world's info.
  Status waiters = kOk;
  if (world && agreed == MPI_SUCCESS && oversubscribed_ && node_size_ > 1 &&
      config().virtual_nodes <= 1) {
    bool shared = false;
    waiters = share_node_segment(node, 0, sizeof(std::atomic<uint32_t>), waiters_seg_, &shared);
    if (shared)
      progress::share_node_waiters(reinterpret_cast<std::atomic<uint32_t>*>(waiters_seg_.base()),
                                   node_size_);
  }
  PMPI_Comm_free(&node);
  OSPREY_TRY(host_call(agreed, "osprey: the host failed to agree on cross-memory attach"));
  OSPREY_TRY(waiters);
  cma_ok_ = ok != 0;
  if (world) {
    // Every world rank's node, named by its first member's world rank.
    WorldNodes& w = world_nodes();
    w.node_of.assign(static_cast<size_t>(size_), 0);
    int mine = all[0].world_rank;
    const int rc = finish_collective(
        PMPI_Iallgather(&mine, 1, MPI_INT, w.node_of.data(), 1, MPI_INT, priv_, &req), &req);
    OSPREY_TRY(host_call(rc, "osprey: the host failed to gather the job's nodes"));
    for (const CommNodeMember& m : all)
      w.members[m.world_rank] = m;
    w.cma_ok = cma_ok_;
    w.oversubscribed = oversubscribed_;
    w.known = true;
  }
  return setup_node_barrier();
}

Status CommInfo::setup_from_world(bool* known) {
  *known = false;
  const WorldNodes& w = world_nodes();
  if (!w.known) return kOk;
  // The same answer on every rank: a communicator with a process of another job (spawned,
  // connected) has, on each rank, some member outside that rank's MPI_COMM_WORLD.
  MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
  PMPI_Comm_group(priv_, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  std::vector<int> ranks(static_cast<size_t>(size_)), world(ranks.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  const int rc = PMPI_Group_translate_ranks(group, size_, ranks.data(), world_group, world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  if (rc != MPI_SUCCESS) return kOk;
  for (int r : world)
    if (r == MPI_UNDEFINED || r < 0 || static_cast<size_t>(r) >= w.node_of.size()) return kOk;

  const int my_node = w.node_of[static_cast<size_t>(world[static_cast<size_t>(rank_)])];
  std::vector<CommNodeMember> all;
  for (int i = 0; i < size_; ++i) {
    const int wr = world[static_cast<size_t>(i)];
    if (w.node_of[static_cast<size_t>(wr)] != my_node) continue;
    const auto it = w.members.find(wr);
    if (it == w.members.end()) return kOk;  // cannot be: same node, same world
    CommNodeMember m = it->second;
    m.rank = i;
    m.saw_oversubscribed = w.oversubscribed ? 1 : 0;
    all.push_back(m);
  }
  if (all.empty()) return kOk;
  *known = true;
  oversubscribed_ = decide_oversubscription(all);
  note_members(all);
  cma_ok_ = w.cma_ok;
  return setup_node_barrier();
}

Status CommInfo::setup_node_barrier() {
  if (!all_on_node() || node_size_ <= 1 || !(oversubscribed_ || node_size_ <= kNodeBarrierMaxRanks))
    return kOk;
  // The whole communicator is the node: its collectives are the node's.
  shm::Segment seg;
  bool shared = false;
  OSPREY_TRY(share_node_segment(priv_, node_ranks_.front(), sizeof(shm::CentralBarrierWords), seg,
                                &shared));
  if (!shared) return kOk;  // every rank keeps the host's barrier
  barrier_seg_ = static_cast<shm::Segment&&>(seg);
  barrier_ = shm::CentralBarrier(reinterpret_cast<shm::CentralBarrierWords*>(barrier_seg_.base()),
                                 static_cast<uint32_t>(node_size_));
  return kOk;
}

}  // namespace osprey::rma
