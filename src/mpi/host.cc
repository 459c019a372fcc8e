#include "mpi/host.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#ifndef OSPREY_HOST_SONAME
#define OSPREY_HOST_SONAME "libmpi.so"
#endif

namespace osprey::host {
namespace {

void* handle_for_fallback() {
  static void* h = dlopen(OSPREY_HOST_SONAME, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  return h;
}

// The next definition after osprey's own, i.e. the host library's.
template <class F>
void resolve(F& slot, const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p && handle_for_fallback()) p = dlsym(handle_for_fallback(), name);
  if (!p) {
    std::fprintf(stderr, "osprey: cannot find the host MPI's %s (%s)\n", name, dlerror());
    std::abort();
  }
  slot = reinterpret_cast<F>(p);
}

Functions load() {
  Functions f{};
  resolve(f.win_create_dynamic, "PMPI_Win_create_dynamic");
  resolve(f.win_allocate, "PMPI_Win_allocate");
  resolve(f.win_free, "PMPI_Win_free");
  resolve(f.win_get_attr, "PMPI_Win_get_attr");
  resolve(f.win_set_attr, "PMPI_Win_set_attr");
  resolve(f.win_delete_attr, "PMPI_Win_delete_attr");
  resolve(f.win_create_keyval, "PMPI_Win_create_keyval");
  resolve(f.win_free_keyval, "PMPI_Win_free_keyval");
  resolve(f.win_set_name, "PMPI_Win_set_name");
  resolve(f.win_get_name, "PMPI_Win_get_name");
  resolve(f.win_create_errhandler, "PMPI_Win_create_errhandler");
  resolve(f.win_set_errhandler, "PMPI_Win_set_errhandler");
  resolve(f.win_get_errhandler, "PMPI_Win_get_errhandler");
  resolve(f.win_call_errhandler, "PMPI_Win_call_errhandler");
  resolve(f.alloc_mem, "PMPI_Alloc_mem");
  resolve(f.free_mem, "PMPI_Free_mem");
  resolve(f.type_free, "PMPI_Type_free");
  resolve(f.type_set_name, "PMPI_Type_set_name");
  resolve(f.type_get_contents, "PMPI_Type_get_contents");
#if MPI_VERSION >= 4
  resolve(f.type_get_contents_c, "PMPI_Type_get_contents_c");
#endif
  resolve(f.type_create_keyval, "PMPI_Type_create_keyval");
  return f;
}

}  // namespace

const Functions& fn() {
  static const Functions f = load();
  return f;
}

}  // namespace osprey::host
