// Calls whose engine support lands in later steps: they fail loudly, never pass through.
#include "rma/window.h"

namespace osprey::rma {
namespace {
constexpr Status kLater = {MPI_ERR_UNSUPPORTED_OPERATION,
                           "osprey: this RMA call is not implemented yet"};
}  // namespace

Status Window::pscw_access(const TargetView&) { return kLater; }
Status Window::post(MPI_Group, int) { return kLater; }
Status Window::start(MPI_Group, int) { return kLater; }
Status Window::complete() { return kLater; }
Status Window::wait() { return kLater; }
Status Window::test(bool*) { return kLater; }

}  // namespace osprey::rma
