// Calls whose engine support lands in later steps: they fail loudly, never pass through.
#include "rma/window.h"

namespace osprey::rma {
namespace {
constexpr Status kLater = {MPI_ERR_UNSUPPORTED_OPERATION,
                           "osprey: this RMA call is not implemented yet"};
}  // namespace

Status Window::accumulate(const void*, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count,
                          MPI_Datatype, MPI_Op) { return kLater; }
Status Window::get_accumulate(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count,
                              MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op) {
  return kLater;
}
Status Window::fetch_and_op(const void*, void*, MPI_Datatype, int, MPI_Aint, MPI_Op) {
  return kLater;
}
Status Window::compare_and_swap(const void*, const void*, void*, MPI_Datatype, int, MPI_Aint) {
  return kLater;
}
Status Window::lock(int, int, int) { return kLater; }
Status Window::unlock(int) { return kLater; }
Status Window::lock_all(int) { return kLater; }
Status Window::unlock_all() { return kLater; }
Status Window::flush(int) { return kLater; }
Status Window::flush_all() { return kLater; }
Status Window::flush_local(int) { return kLater; }
Status Window::flush_local_all() { return kLater; }
Status Window::sync() { return kLater; }
Status Window::post(MPI_Group, int) { return kLater; }
Status Window::start(MPI_Group, int) { return kLater; }
Status Window::complete() { return kLater; }
Status Window::wait() { return kLater; }
Status Window::test(bool*) { return kLater; }

}  // namespace osprey::rma
