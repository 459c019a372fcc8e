// Synchronization calls: fence, passive target, PSCW, flushes and sync.
#include "mpi/binding.h"

using namespace osprey;

OSPREY_EXPORT int PMPI_Win_fence(int assert, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->fence(assert));
}
OSPREY_ALIAS(MPI_Win_fence)

namespace {

[[gnu::noinline]] int lock(int type, int rank, int assert, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->lock(type, rank, assert));
}

[[gnu::noinline]] int unlock(int rank, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->unlock(rank));
}

}  // namespace

// Lock and unlock try their commonest case first, as the flushes do (below).
OSPREY_EXPORT int PMPI_Win_lock(int type, int rank, int assert, MPI_Win win) {
  if (rma::Window* w = rma::cached_window(win); w && w->lock_direct(type, rank, assert))
    return MPI_SUCCESS;
  return lock(type, rank, assert, win);
}
OSPREY_ALIAS(MPI_Win_lock)

OSPREY_EXPORT int PMPI_Win_unlock(int rank, MPI_Win win) {
  if (rma::Window* w = rma::cached_window(win); w && w->unlock_direct(rank)) return MPI_SUCCESS;
  return unlock(rank, win);
}
OSPREY_ALIAS(MPI_Win_unlock)

OSPREY_EXPORT int PMPI_Win_lock_all(int assert, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->lock_all(assert));
}
OSPREY_ALIAS(MPI_Win_lock_all)

OSPREY_EXPORT int PMPI_Win_unlock_all(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->unlock_all());
}
OSPREY_ALIAS(MPI_Win_unlock_all)

namespace {

// `tried`: the export tried flush_direct on this window already (see win_ops.cc).
[[gnu::noinline]] int flush(int rank, MPI_Win win, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!tried && w->flush_direct(rank)) return MPI_SUCCESS;
  return binding::finish(w, w->flush_general(rank));
}

}  // namespace

// The commonest flush first, in a body that saves no registers (a flush in a put + flush loop
// spent a fifth of its instructions on them); a window in MPI_Win_free is never in lock_all.
OSPREY_EXPORT int PMPI_Win_flush(int rank, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->flush_direct(rank)) return MPI_SUCCESS;
  return flush(rank, win, w != nullptr);
}
OSPREY_ALIAS(MPI_Win_flush)

OSPREY_EXPORT int PMPI_Win_flush_all(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->flush_all());
}
OSPREY_ALIAS(MPI_Win_flush_all)

OSPREY_EXPORT int PMPI_Win_flush_local(int rank, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->flush_local(rank));
}
OSPREY_ALIAS(MPI_Win_flush_local)

OSPREY_EXPORT int PMPI_Win_flush_local_all(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->flush_local_all());
}
OSPREY_ALIAS(MPI_Win_flush_local_all)

OSPREY_EXPORT int PMPI_Win_sync(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->sync());
}
OSPREY_ALIAS(MPI_Win_sync)

OSPREY_EXPORT int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->post(group, assert));
}
OSPREY_ALIAS(MPI_Win_post)

OSPREY_EXPORT int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->start(group, assert));
}
OSPREY_ALIAS(MPI_Win_start)

OSPREY_EXPORT int PMPI_Win_complete(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->complete());
}
OSPREY_ALIAS(MPI_Win_complete)

OSPREY_EXPORT int PMPI_Win_wait(MPI_Win win) {
  OSPREY_LIVE_WINDOW(w, win);
  return binding::finish(w, w->wait());
}
OSPREY_ALIAS(MPI_Win_wait)

OSPREY_EXPORT int PMPI_Win_test(MPI_Win win, int* flag) {
  OSPREY_LIVE_WINDOW(w, win);
  bool done = false;
  Status s = w->test(&done);
  *flag = done;
  return binding::finish(w, s);
}
OSPREY_ALIAS(MPI_Win_test)
