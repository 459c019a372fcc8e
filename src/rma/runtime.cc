#include "rma/runtime.h"

#include <mpi.h>

#include <atomic>
#include <mutex>

#include "datatype/type_info.h"
#include "progress/host_hook.h"
#include "progress/host_wait.h"
#include "progress/host_yield.h"
#include "progress/thread.h"
#include "rma/comm_info.h"
#include "util/config.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

std::once_flag once;
std::atomic<bool> ready{false};
std::atomic<bool> finalized{false};
std::atomic<int> messages_possible{-1};  // -1: MPI_Init not seen

// Where the job may use the message path, every rank waits here, serving requests meanwhile,
// until all ranks have reached MPI_Finalize, so that no rank closes its endpoints (its request
// slots cancelled, then the host's connections closed) while another may still be sending to
// it. MPICH's finalize over UCX's TCP transport can spin for good when ranks enter it apart (it
// does so by itself now and then at 4 ranks); a rank that went ahead while its peer finished
// its last window's traffic made that likely at 2: 7 of 10 runs of `rma_bw -s flush -o put -M
// 1024` hung there, none of 10 with this barrier (nor of MPICH's own RMA). The decision is the
// same on every rank (job_may_use_messages), so every rank or none enters the barrier.
void meet_before_shutdown() {
  if (!job_may_use_messages()) return;
  MPI_Request r;
  if (PMPI_Ibarrier(MPI_COMM_WORLD, &r) == MPI_SUCCESS) progress::wait_host(&r, progress::poll);
}

int on_self_delete(MPI_Comm, int, void*, void*) {
  OSPREY_LOG(1, "MPI_Finalize: releasing osprey's communicators");
  progress::stop_thread();
  meet_before_shutdown();
  progress::unregister_host_hook();  // before the private communicators go
  CommInfo::shutdown_all();
  // Once more when every rank's endpoints are gone, so that the ranks enter the host's own
  // finalize together, as a program does after its last barrier: with the teardown between
  // (cancels, the last sends' waits) they entered it apart, and MPICH's finalize over TCP still
  // spun for good in about 1 of 10 runs of `am_put_batch` there (a plain program: 0 of 40).
  meet_before_shutdown();
  finalized.store(true);
  return MPI_SUCCESS;
}

void init() {
  dt::init_predefined();
  progress::find_host_yield();
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  OSPREY_LOG(1, "initialized");
  ready.store(true);
}

}  // namespace

Status ensure_runtime() {
  if (ready.load(std::memory_order_acquire) && !finalized.load(std::memory_order_relaxed))
    return kOk;
  int initialized = 0, fin = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&fin);
  if (!initialized || fin || finalized.load())
    return Err(MPI_ERR_OTHER, "osprey: RMA call while MPI is not initialized");
  std::call_once(once, init);
  return kOk;
}

bool runtime_finalized() {
  return finalized.load(std::memory_order_relaxed);
}

void on_host_init() {
  if (!ensure_runtime().ok()) return;
  CommInfo* ci = nullptr;
  if (!CommInfo::acquire(MPI_COMM_WORLD, &ci).ok()) return;  // unknown: assume possible
  MPI_Comm parent = MPI_COMM_NULL;
  PMPI_Comm_get_parent(&parent);
  const bool possible = config().transport == TransportMode::kAm || !ci->all_on_node() ||
                        (ci->node_size() > 1 && !ci->cma_ok()) || parent != MPI_COMM_NULL;
  messages_possible.store(possible ? 1 : 0);
  OSPREY_LOG(1, "the message path is %s in this job", possible ? "possible" : "never needed");
  ci->release();  // MPI_COMM_WORLD's attribute keeps it for the windows to come
}

bool job_may_use_messages() {
  return messages_possible.load(std::memory_order_relaxed) != 0;
}

}  // namespace osprey::rma
