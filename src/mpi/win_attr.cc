// Window attributes, names, error handlers, groups, info and shared_query. Predefined
// attributes are answered by osprey (the anchor would describe itself); everything else is the
// host's business on the anchor.
#include "mpi/binding.h"
#include "mpi/host.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag) {
  OSPREY_WINDOW(w, win);
  void* v = nullptr;
  if (keyval == MPI_WIN_BASE)
    v = w->base();
  else if (keyval == MPI_WIN_SIZE)
    v = w->size_attr();
  else if (keyval == MPI_WIN_DISP_UNIT)
    v = w->disp_unit_attr();
  else if (keyval == MPI_WIN_CREATE_FLAVOR)
    v = w->flavor_attr();
  else if (keyval == MPI_WIN_MODEL)
    v = w->model_attr();
  else
    return host::fn().win_get_attr(win, keyval, value, flag);
  *static_cast<void**>(value) = v;
  *flag = 1;
  return MPI_SUCCESS;
}
OSPREY_ALIAS(MPI_Win_get_attr)

OSPREY_EXPORT int PMPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_set_attr(win, keyval, value);
}
OSPREY_ALIAS(MPI_Win_set_attr)

OSPREY_EXPORT int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_delete_attr(win, keyval);
}
OSPREY_ALIAS(MPI_Win_delete_attr)

OSPREY_EXPORT int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy,
                                         MPI_Win_delete_attr_function* del, int* keyval,
                                         void* extra) {
  return host::fn().win_create_keyval(copy, del, keyval, extra);
}
OSPREY_ALIAS(MPI_Win_create_keyval)

OSPREY_EXPORT int PMPI_Win_free_keyval(int* keyval) {
  return host::fn().win_free_keyval(keyval);
}
OSPREY_ALIAS(MPI_Win_free_keyval)

OSPREY_EXPORT int PMPI_Win_set_name(MPI_Win win, const char* name) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_set_name(win, name);
}
OSPREY_ALIAS(MPI_Win_set_name)

OSPREY_EXPORT int PMPI_Win_get_name(MPI_Win win, char* name, int* len) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_get_name(win, name, len);
}
OSPREY_ALIAS(MPI_Win_get_name)

OSPREY_EXPORT int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* eh) {
  return host::fn().win_create_errhandler(fn, eh);
}
OSPREY_ALIAS(MPI_Win_create_errhandler)

OSPREY_EXPORT int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler eh) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_set_errhandler(win, eh);
}
OSPREY_ALIAS(MPI_Win_set_errhandler)

OSPREY_EXPORT int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* eh) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_get_errhandler(win, eh);
}
OSPREY_ALIAS(MPI_Win_get_errhandler)

OSPREY_EXPORT int PMPI_Win_call_errhandler(MPI_Win win, int code) {
  OSPREY_WINDOW(w, win);
  (void)w;
  return host::fn().win_call_errhandler(win, code);
}
OSPREY_ALIAS(MPI_Win_call_errhandler)

OSPREY_EXPORT int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  OSPREY_WINDOW(w, win);
  return binding::finish(w, w->get_group(group));
}
OSPREY_ALIAS(MPI_Win_get_group)

OSPREY_EXPORT int PMPI_Win_get_info(MPI_Win win, MPI_Info* info) {
  OSPREY_WINDOW(w, win);
  return binding::finish(w, w->get_info(info));
}
OSPREY_ALIAS(MPI_Win_get_info)

OSPREY_EXPORT int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  OSPREY_WINDOW(w, win);
  return binding::finish(w, w->set_info(info));
}
OSPREY_ALIAS(MPI_Win_set_info)

OSPREY_EXPORT int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                        void* baseptr) {
  OSPREY_LIVE_WINDOW(w, win);
  MPI_Aint du = 0;
  Status s = w->shared_query(rank, size, &du, static_cast<void**>(baseptr));
  if (s.ok()) *disp_unit = static_cast<int>(du);
  return binding::finish(w, s);
}
OSPREY_ALIAS(MPI_Win_shared_query)

OSPREY_EXPORT int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size,
                                          MPI_Aint* disp_unit, void* baseptr) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->shared_query(rank, size, disp_unit, static_cast<void**>(baseptr)));
}
OSPREY_ALIAS(MPI_Win_shared_query_c)
