// What osprey keeps per user communicator that windows are created on (not shared with its
// dups: threads may create and free windows on two dups at once, and the window ids and the
// collectives of freeing on one private communicator would cross): one private communicator for
// osprey's own point-to-point traffic (packets carry the window id), where each rank lives, and
// whether node peers' private memory can be reached by cross-memory attach. Never a communicator
// per window. Collectives osprey needs while creating a window run on the user's communicator,
// inside the user's collective call.
#pragma once

#include <mpi.h>
#include <sched.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "progress/engine.h"
#include "transport/shm/central_barrier.h"
#include "transport/shm/segment.h"
#include "util/status.h"

namespace osprey::am {
class Endpoint;
}

namespace osprey::rma {

class Window;

// What each rank tells its node's others when a communicator's info is set up (one gather).
struct CommNodeMember {
  int32_t rank, pid, world_rank;
  int32_t saw_oversubscribed;  // this process: an earlier communicator's node was
  uint64_t probe_addr;         // cross-memory attach reads this word
  cpu_set_t mask;
};

class CommInfo {
 public:
  // Finds or creates the info for `user` (collective over `user` on first use) and takes a
  // reference that the caller gives back with release().
  static Status acquire(MPI_Comm user, CommInfo** out);
  // The info of `user` if it has one (no reference taken; for a call on `user` itself).
  static CommInfo* find(MPI_Comm user);
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release();

  // Frees every CommInfo's communicators at MPI_Finalize (no collectives after that).
  static void shutdown_all();

  MPI_Comm priv() const { return priv_; }
  // The private communicator's error handler: a host failure of osprey's own messages ends the
  // job with a message (comm_info.cc).
  static MPI_Errhandler private_errhandler();
  int rank() const { return rank_; }
  int size() const { return size_; }
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }
  bool all_on_node() const { return node_size_ == size_; }
  bool cma_ok() const { return cma_ok_; }
  pid_t node_pid(int local) const { return node_pids_[static_cast<size_t>(local)]; }

  // Node-local index of a rank of the communicator, or -1 if it lives on another node.
  int local_index(int comm_rank) const {
    if (contiguous_) {
      const int i = comm_rank - first_;
      return i >= 0 && i < node_size_ ? i : -1;
    }
    return search_local(comm_rank);
  }
  int comm_rank_of_local(int local) const { return node_ranks_[static_cast<size_t>(local)]; }

  // Window ids are agreed at creation as the maximum of every rank's proposal.
  uint64_t proposed_window_id() const { return next_window_id_.load(); }
  void window_id_used(uint64_t id);

  // The message path of this communicator, created with its first window that needs it.
  am::Endpoint* endpoint() const { return endpoint_; }
  void start_endpoint();
  void stop_endpoint();
  // Windows the endpoint dispatches requests to, by id (window(): with windows_mu_ held).
  void add_window(uint64_t id, Window* w);
  void remove_window(uint64_t id);
  Window* window(uint64_t id) const;
  // Work the windows' message paths have pending (requests waiting, operations in flight):
  // while none, a poll visits no window.
  std::atomic<std::size_t>& am_work() { return am_work_; }

  // Whole communicator on one node, oversubscribed or of at most kNodeBarrierMaxRanks ranks: a
  // barrier on shared words, whose waiters an oversubscribed node's last arrival wakes
  // (comm_barrier.cc). Same answer on every rank.
  bool has_node_barrier() const { return barrier_seg_.base() != nullptr; }
  void node_barrier();
  // Whether this communicator's node is oversubscribed: the same on its ranks of one node.
  bool oversubscribed() const { return oversubscribed_; }

 private:
  // Up to this many ranks one arrival counter costs less than the host's barrier (MPICH's at 2
  // ranks: about 0.5 us, the counter 0.1); beyond, they all contend for its cache line.
  static constexpr int kNodeBarrierMaxRanks = 16;
  CommInfo() = default;
  ~CommInfo();
  Status init(MPI_Comm user);
  int search_local(int comm_rank) const;
  static Status gather_node(MPI_Comm node, const CommNodeMember& me,
                            std::vector<CommNodeMember>& all);
  // The node's members (ascending communicator ranks) become this info's (comm_node_setup.cc).
  void note_members(const std::vector<CommNodeMember>& all);
  // From what MPI_COMM_WORLD's setup kept, without any host collective; *known false if it
  // cannot tell (no world setup, members of another job): then by the host's split, which
  // keeps what it learns when `world`.
  Status setup_from_world(bool* known);
  Status setup_by_split(bool world);
  // Collective over the communicator when it is the whole node.
  Status setup_node_barrier();
  // Whether the node of `all` is oversubscribed (progress/oversub.h): the same on each of them.
  static bool decide_oversubscription(const std::vector<CommNodeMember>& all);

  MPI_Comm priv_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0, node_rank_ = 0, node_size_ = 0;
  bool contiguous_ = false;
  int first_ = 0;
  std::vector<int> node_ranks_;  // comm ranks of node members, ascending
  std::vector<pid_t> node_pids_;
  bool cma_ok_ = false;
  bool oversubscribed_ = false;
  std::atomic<uint64_t> next_window_id_{1};
  std::atomic<int> refs_{1};
  bool dead_ = false;
  am::Endpoint* endpoint_ = nullptr;
  class Dispatch;
  Dispatch* dispatch_ = nullptr;
  progress::EngineMutex
      windows_mu_;  // guards windows_; held while the endpoint hands one a request
  std::unordered_map<uint64_t, Window*> windows_;  // thousands at times
  std::atomic<std::size_t> am_work_{0};
  shm::Segment barrier_seg_;
  shm::CentralBarrier barrier_;
  shm::Segment waiters_seg_;  // MPI_COMM_WORLD's: the node's waiting ranks (node_waiters.h)
};

// MPI_Barrier on `c` through its node barrier, if it has one and the job never uses the
// message path (whose requests a sleeping rank would not serve); false: use the host's.
bool node_barrier(MPI_Comm c);

// Tests only (OSPREY_VIRTUAL_NODES=k > 1): the pretend node this process sits in, world rank
// modulo k, the same for every communicator; -1 when nodes are real.
int virtual_node();

// Runs every communicator's message endpoint once (the progress engine's poller).
bool am_poll();
// Whether any message endpoint exists (blocking host calls then run progress).
bool am_endpoints_exist();

}  // namespace osprey::rma
