#include "rma/comm_info.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

#include "progress/liveness.h"
#include "progress/node_waiters.h"
#include "rma/agree.h"
#include "util/config.h"
#include "util/host_call.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

std::mutex mu;
int keyval = MPI_KEYVAL_INVALID;
bool finalized = false;

std::set<CommInfo*>& live() {
  static auto* s = new std::set<CommInfo*>;  // lives until exit
  return *s;
}

// A dup gets an info of its own when it creates a window (see comm_info.h).
int on_copy(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int on_delete(MPI_Comm, int, void* attr, void*) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (finalized) return MPI_SUCCESS;  // shutdown_all already freed everything
  }
  static_cast<CommInfo*>(attr)->release();
  return MPI_SUCCESS;
}

// osprey's own traffic on the private communicator (requests, replies, payloads, setup
// messages, agreements) runs in progress calls that have no user call to return an error to,
// and a lost message would hang or corrupt every window of the communicator. So the host
// reports any failure there through this handler, which names it and ends the job, whatever
// handler the user's communicator had (a dup inherits it; MPI_ERRORS_RETURN would let the
// failure pass unseen).
void on_private_error(MPI_Comm*, int* code, ...) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  PMPI_Error_string(*code, text, &len);
  std::fprintf(stderr,
               "osprey: the host MPI failed a call of osprey's own messages (%s); the windows of "
               "this communicator cannot go on, aborting the job\n",
               text);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, *code);
}

}  // namespace

MPI_Errhandler CommInfo::private_errhandler() {
  static MPI_Errhandler eh = [] {
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    PMPI_Comm_create_errhandler(on_private_error, &h);
    return h;
  }();
  return eh;
}

CommInfo* CommInfo::find(MPI_Comm user) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (keyval == MPI_KEYVAL_INVALID || finalized) return nullptr;
  }
  void* attr = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(user, keyval, &attr, &flag);
  return flag ? static_cast<CommInfo*>(attr) : nullptr;
}

Status CommInfo::acquire(MPI_Comm user, CommInfo** out) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(on_copy, on_delete, &keyval, nullptr);
  }
  void* attr = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(user, keyval, &attr, &flag);
  if (flag) {
    auto* ci = static_cast<CommInfo*>(attr);
    ci->retain();
    *out = ci;
    return kOk;
  }
  auto* ci = new CommInfo;
  Status s = ci->init(user);
  if (!s.ok()) {
    delete ci;
    return s;
  }
  {
    std::lock_guard<std::mutex> g(mu);
    live().insert(ci);
  }
  ci->refs_.fetch_add(1, std::memory_order_relaxed);  // one for the attribute, one for caller
  PMPI_Comm_set_attr(user, keyval, ci);
  *out = ci;
  return kOk;
}

int virtual_node() {
  if (config().virtual_nodes <= 1) return -1;
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  return world_rank % static_cast<int>(config().virtual_nodes);
}

Status CommInfo::init(MPI_Comm user) {
  int inter = 0;
  PMPI_Comm_test_inter(user, &inter);
  if (inter) return Err(MPI_ERR_COMM, "osprey: windows need an intracommunicator");
  // Dup and split are collective, and the host fails them alike on every rank (context ids
  // are agreed), so every rank returns the error.
  MPI_Request req = MPI_REQUEST_NULL;
  const int dup = finish_collective(PMPI_Comm_idup(user, &priv_, &req), &req);
  if (dup != MPI_SUCCESS) priv_ = MPI_COMM_NULL;
  OSPREY_TRY(host_call(dup, "osprey: the host cannot create another communicator for this window"));
  PMPI_Comm_rank(priv_, &rank_);
  PMPI_Comm_size(priv_, &size_);
  bool known = false;
  OSPREY_TRY(setup_from_world(&known));
  if (!known) OSPREY_TRY(setup_by_split(user == MPI_COMM_WORLD));
  first_ = node_ranks_.front();
  contiguous_ = node_ranks_.back() - first_ == node_size_ - 1;
  // From here on the private communicator carries osprey's own messages (the checks above run
  // under the user's handler, so that every rank returns their errors).
  PMPI_Comm_set_errhandler(priv_, private_errhandler());
  OSPREY_LOG(1, "communicator of %d ranks, %d on this node, cross-memory attach %s", size_,
             node_size_, cma_ok_ ? "available" : "unavailable");
  return kOk;
}

int CommInfo::search_local(int comm_rank) const {
  auto it = std::lower_bound(node_ranks_.begin(), node_ranks_.end(), comm_rank);
  return it != node_ranks_.end() && *it == comm_rank ? static_cast<int>(it - node_ranks_.begin())
                                                     : -1;
}

void CommInfo::window_id_used(uint64_t id) {
  uint64_t cur = next_window_id_.load();
  while (cur <= id && !next_window_id_.compare_exchange_weak(cur, id + 1)) {
  }
}

void CommInfo::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    std::lock_guard<std::mutex> g(mu);
    live().erase(this);
  }
  delete this;
}

CommInfo::~CommInfo() {
  if (waiters_seg_.base()) progress::share_node_waiters(nullptr, 0);  // before it unmaps
  for (pid_t p : node_pids_)
    progress::unwatch_peer(p);
  if (!dead_) stop_endpoint();
  if (!dead_ && priv_ != MPI_COMM_NULL) PMPI_Comm_free(&priv_);
}

void CommInfo::shutdown_all() {
  std::lock_guard<std::mutex> g(mu);
  finalized = true;
  for (CommInfo* ci : live()) {
    ci->stop_endpoint();
    if (ci->priv_ != MPI_COMM_NULL) PMPI_Comm_free(&ci->priv_);
    ci->dead_ = true;
  }
}

}  // namespace osprey::rma
