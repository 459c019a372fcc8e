// Window creation and destruction: the anchor (a host window on MPI_COMM_SELF that the user
// holds as the handle) and the osprey window behind it.
#include "mpi/binding.h"
#include "mpi/host.h"
#include "rma/comm_info.h"
#include "rma/registry.h"

using namespace osprey;

namespace {

MPI_Win make_anchor() {
  MPI_Win anchor = MPI_WIN_NULL;
#ifdef OSPREY_HOST_OPENMPI
  void* base = nullptr;  // Open MPI cannot create/create_dynamic on COMM_SELF
  if (host::fn().win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &anchor) != MPI_SUCCESS)
    anchor = MPI_WIN_NULL;
#else
  if (host::fn().win_create_dynamic(MPI_INFO_NULL, MPI_COMM_SELF, &anchor) != MPI_SUCCESS)
    anchor = MPI_WIN_NULL;
#endif
  return anchor;
}

int create(rma::Flavor flavor, MPI_Aint size, MPI_Aint disp_unit, void* base, MPI_Info info,
           MPI_Comm comm, void* baseptr, MPI_Win* win) {
  Status s = rma::ensure_runtime();
  if (!s.ok()) return errors::raise_on_comm(comm, s);
  // The communicator's info first: when the host has no communicator left, every rank fails
  // there alike, before any rank holds an anchor it would have to give back.
  if (comm == MPI_COMM_NULL)
    return errors::raise_on_comm(comm, Err(MPI_ERR_COMM, "osprey: window on MPI_COMM_NULL"));
  rma::CommInfo* ci = nullptr;
  s = rma::CommInfo::acquire(comm, &ci);
  if (!s.ok()) return errors::raise_on_comm(comm, s);
  MPI_Win anchor = make_anchor();
  rma::Window* w = nullptr;
  s = rma::Window::create({flavor, size, disp_unit, base, info, comm, anchor}, &w);
  ci->release();
  if (!s.ok()) {
    if (anchor != MPI_WIN_NULL) host::fn().win_free(&anchor);
    return errors::raise_on_comm(comm, s);
  }
  if (baseptr) *static_cast<void**>(baseptr) = w->base();
  *win = anchor;
  return MPI_SUCCESS;
}

}  // namespace

OSPREY_EXPORT int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                    void* baseptr, MPI_Win* win) {
  return create(rma::Flavor::kAllocate, size, disp_unit, nullptr, info, comm, baseptr, win);
}
OSPREY_ALIAS(MPI_Win_allocate)

OSPREY_EXPORT int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                      MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create(rma::Flavor::kAllocate, size, disp_unit, nullptr, info, comm, baseptr, win);
}
OSPREY_ALIAS(MPI_Win_allocate_c)

OSPREY_EXPORT int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                           MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create(rma::Flavor::kShared, size, disp_unit, nullptr, info, comm, baseptr, win);
}
OSPREY_ALIAS(MPI_Win_allocate_shared)

OSPREY_EXPORT int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                             MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create(rma::Flavor::kShared, size, disp_unit, nullptr, info, comm, baseptr, win);
}
OSPREY_ALIAS(MPI_Win_allocate_shared_c)

OSPREY_EXPORT int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                                  MPI_Comm comm, MPI_Win* win) {
  return create(rma::Flavor::kCreate, size, disp_unit, base, info, comm, nullptr, win);
}
OSPREY_ALIAS(MPI_Win_create)

OSPREY_EXPORT int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                    MPI_Comm comm, MPI_Win* win) {
  return create(rma::Flavor::kCreate, size, disp_unit, base, info, comm, nullptr, win);
}
OSPREY_ALIAS(MPI_Win_create_c)

OSPREY_EXPORT int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create(rma::Flavor::kDynamic, 0, 1, nullptr, info, comm, nullptr, win);
}
OSPREY_ALIAS(MPI_Win_create_dynamic)

OSPREY_EXPORT int PMPI_Win_free(MPI_Win* win) {
  if (!win) return binding::bad_window();
  OSPREY_LIVE_WINDOW(w, *win);
  Status s = w->free();
  if (!s.ok()) return errors::raise_on_win(w->anchor(), s);
  // The host runs the user's attribute delete callbacks on the anchor: the window still
  // answers for its attributes until they ran.
  const MPI_Win anchor = *win;
  const int rc = host::fn().win_free(win);
  rma::unregister_window(anchor, w);
  delete w;
  *win = MPI_WIN_NULL;
  return rc;
}
OSPREY_ALIAS(MPI_Win_free)
