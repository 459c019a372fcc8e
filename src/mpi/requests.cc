#include "mpi/requests.h"

namespace osprey::binding {
namespace {

int query(void*, MPI_Status* status) {
  PMPI_Status_set_elements_x(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int release(void*) {
  return MPI_SUCCESS;
}
int cancel(void*, int) {
  return MPI_SUCCESS;
}

}  // namespace

int start_request(MPI_Request* req) {
  return PMPI_Grequest_start(query, release, cancel, nullptr, req);
}

}  // namespace osprey::binding
