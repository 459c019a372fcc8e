#include "rma/runtime.h"

#include <mpi.h>

#include <atomic>
#include <mutex>

#include "datatype/type_info.h"
#include "progress/host_hook.h"
#include "progress/thread.h"
#include "rma/comm_info.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

std::once_flag once;
std::atomic<bool> ready{false};
std::atomic<bool> finalized{false};

int on_self_delete(MPI_Comm, int, void*, void*) {
  OSPREY_LOG(1, "MPI_Finalize: releasing osprey's communicators");
  progress::stop_thread();
  progress::unregister_host_hook();  // before the private communicators go
  CommInfo::shutdown_all();
  finalized.store(true);
  return MPI_SUCCESS;
}

void init() {
  dt::init_predefined();
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

}  // namespace osprey::rma
