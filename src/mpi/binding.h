// Helpers shared by the binding files: exporting MPI_X as an alias of osprey's PMPI_X, window
// lookup, and the return path through the window's error handler.
#pragma once

#include <mpi.h>

#include "mpi/errors.h"
#include "rma/registry.h"
#include "rma/runtime.h"
#include "rma/window.h"

#define OSPREY_EXPORT extern "C" __attribute__((visibility("default")))

// MPI_name is the same function as osprey's PMPI_name.
#define OSPREY_ALIAS(name) OSPREY_EXPORT decltype(P##name) name __attribute__((alias("P" #name)));

namespace osprey::binding {

inline int finish(rma::Window* w, const Status& s) {
  return s.ok() ? MPI_SUCCESS : errors::raise_on_win(w->anchor(), s);
}

inline int bad_window() {
  return errors::raise_no_object(Err(MPI_ERR_WIN, "osprey: invalid window handle"));
}

}  // namespace osprey::binding

// Declares `w` for handle `win`, or returns MPI_ERR_WIN through MPI_COMM_WORLD's handler.
#define OSPREY_WINDOW(w, win)                                 \
  ::osprey::rma::Window* w = ::osprey::rma::find_window(win); \
  if (!w) return ::osprey::binding::bad_window()

// The same for calls that move data or synchronize: a window inside MPI_Win_free (its memory
// gone, its attribute delete callbacks running) answers only for its attributes.
#define OSPREY_LIVE_WINDOW(w, win) \
  OSPREY_WINDOW(w, win);           \
  if (w->freed()) return ::osprey::binding::bad_window()
