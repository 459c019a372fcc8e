// Communication calls, with their request-based and MPI-4 large-count forms. Each form is
// the same engine call; request-based ones first check that a passive epoch is open.
#include "mpi/binding.h"
#include "mpi/requests.h"

using namespace osprey;

namespace {

inline int done(rma::Window* w, const Status& s) {
  return s.ok() ? MPI_SUCCESS : binding::finish(w, s);
}

// Request-based calls: only in passive epochs (but MPI_PROC_NULL is a valid target anywhere,
// as in MPICH); the request is a host generalized request that the engine completes when the
// operation completes locally (at once on shared memory and for MPI_PROC_NULL).
template <class Run>
int with_request(rma::Window* w, int rank, MPI_Request* request, Run&& run) {
  Status s = rank == MPI_PROC_NULL ? kOk : w->check_request_epoch();
  if (!s.ok()) return binding::finish(w, s);
  MPI_Request g = MPI_REQUEST_NULL;
  if (const int rc = binding::start_request(&g); rc != MPI_SUCCESS) return rc;
  MPI_Request handle = g;
  s = run(&handle);
  if (handle != MPI_REQUEST_NULL || !s.ok()) PMPI_Grequest_complete(g);
  if (!s.ok()) {
    PMPI_Request_free(&g);
    return binding::finish(w, s);
  }
  *request = g;
  return MPI_SUCCESS;
}

// The general bodies: `tried`, the export already tried the fast path on this window (it tries
// only the thread's cached window; a program alternating windows misses that cache, and its
// calls then try the fast path here, after the lookup).
template <class C>
[[gnu::noinline]] int put(const void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc,
                          MPI_Datatype tt, MPI_Win win, MPI_Request* req, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!req) {
    if (!tried && w->put_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
    return done(w, w->put_general(o, oc, ot, r, d, tc, tt));
  }
  return with_request(w, r, req,
                      [&](MPI_Request* h) { return w->put_general(o, oc, ot, r, d, tc, tt, h); });
}

template <class C>
[[gnu::noinline]] int get(void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc, MPI_Datatype tt,
                          MPI_Win win, MPI_Request* req, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!req) {
    if (!tried && w->get_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
    return done(w, w->get_general(o, oc, ot, r, d, tc, tt));
  }
  return with_request(w, r, req,
                      [&](MPI_Request* h) { return w->get_general(o, oc, ot, r, d, tc, tt, h); });
}

template <class C>
[[gnu::noinline]] int acc(const void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc,
                          MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request* req, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!req) {
    if (!tried && w->accumulate_direct(o, oc, ot, r, d, tc, tt, op)) return MPI_SUCCESS;
    return done(w, w->accumulate_general(o, oc, ot, r, d, tc, tt, op));
  }
  return with_request(w, r, req, [&](MPI_Request* h) {
    return w->accumulate_general(o, oc, ot, r, d, tc, tt, op, h);
  });
}

template <class C>
[[gnu::noinline]] int get_acc(const void* o, C oc, MPI_Datatype ot, void* res, C rc,
                              MPI_Datatype rt, int r, MPI_Aint d, C tc, MPI_Datatype tt, MPI_Op op,
                              MPI_Win win, MPI_Request* req, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!req) {
    if (!tried && w->get_accumulate_direct(o, oc, ot, res, rc, rt, r, d, tc, tt, op))
      return MPI_SUCCESS;
    return done(w, w->get_accumulate_general(o, oc, ot, res, rc, rt, r, d, tc, tt, op));
  }
  return with_request(w, r, req, [&](MPI_Request* h) {
    return w->get_accumulate_general(o, oc, ot, res, rc, rt, r, d, tc, tt, op, h);
  });
}

[[gnu::noinline]] int fop(const void* o, void* res, MPI_Datatype t, int r, MPI_Aint d, MPI_Op op,
                          MPI_Win win, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!tried && w->fetch_and_op_direct(o, res, t, r, d, op)) return MPI_SUCCESS;
  return done(w, w->fetch_and_op_general(o, res, t, r, d, op));
}

[[gnu::noinline]] int cas(const void* o, const void* cmp, void* res, MPI_Datatype t, int r,
                          MPI_Aint d, MPI_Win win, bool tried) {
  OSPREY_LIVE_WINDOW(w, win);
  if (!tried && w->compare_and_swap_direct(o, cmp, res, t, r, d)) return MPI_SUCCESS;
  return done(w, w->compare_and_swap_general(o, cmp, res, t, r, d));
}

}  // namespace

// MPI_Put and MPI_Get try the copy to or from node memory first, in a body that saves few
// registers, as MPI_Win_flush does (win_sync.cc).
OSPREY_EXPORT int PMPI_Put(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                           MPI_Datatype tt, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->put_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
  return put(o, oc, ot, r, d, tc, tt, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Put)

OSPREY_EXPORT int PMPI_Put_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                             MPI_Count tc, MPI_Datatype tt, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->put_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
  return put(o, oc, ot, r, d, tc, tt, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Put_c)

OSPREY_EXPORT int PMPI_Rput(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                            MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return put(o, oc, ot, r, d, tc, tt, win, req, true);
}
OSPREY_ALIAS(MPI_Rput)

OSPREY_EXPORT int PMPI_Rput_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                              MPI_Count tc, MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return put(o, oc, ot, r, d, tc, tt, win, req, true);
}
OSPREY_ALIAS(MPI_Rput_c)

OSPREY_EXPORT int PMPI_Get(void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                           MPI_Datatype tt, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->get_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
  return get(o, oc, ot, r, d, tc, tt, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Get)

OSPREY_EXPORT int PMPI_Get_c(void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                             MPI_Count tc, MPI_Datatype tt, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->get_direct(o, oc, ot, r, d, tc, tt)) return MPI_SUCCESS;
  return get(o, oc, ot, r, d, tc, tt, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Get_c)

OSPREY_EXPORT int PMPI_Rget(void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                            MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return get(o, oc, ot, r, d, tc, tt, win, req, true);
}
OSPREY_ALIAS(MPI_Rget)

OSPREY_EXPORT int PMPI_Rget_c(void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                              MPI_Count tc, MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return get(o, oc, ot, r, d, tc, tt, win, req, true);
}
OSPREY_ALIAS(MPI_Rget_c)

OSPREY_EXPORT int PMPI_Accumulate(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                                  MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->accumulate_direct(o, oc, ot, r, d, tc, tt, op)) return MPI_SUCCESS;
  return acc(o, oc, ot, r, d, tc, tt, op, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Accumulate)

OSPREY_EXPORT int PMPI_Accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                                    MPI_Count tc, MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->accumulate_direct(o, oc, ot, r, d, tc, tt, op)) return MPI_SUCCESS;
  return acc(o, oc, ot, r, d, tc, tt, op, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Accumulate_c)

OSPREY_EXPORT int PMPI_Raccumulate(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d,
                                   int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win,
                                   MPI_Request* req) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, req, true);
}
OSPREY_ALIAS(MPI_Raccumulate)

OSPREY_EXPORT int PMPI_Raccumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r,
                                     MPI_Aint d, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
                                     MPI_Win win, MPI_Request* req) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, req, true);
}
OSPREY_ALIAS(MPI_Raccumulate_c)

OSPREY_EXPORT int PMPI_Get_accumulate(const void* o, int oc, MPI_Datatype ot, void* res, int rc,
                                      MPI_Datatype rt, int r, MPI_Aint d, int tc, MPI_Datatype tt,
                                      MPI_Op op, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->get_accumulate_direct(o, oc, ot, res, rc, rt, r, d, tc, tt, op)) return MPI_SUCCESS;
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Get_accumulate)

OSPREY_EXPORT int PMPI_Get_accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, void* res,
                                        MPI_Count rc, MPI_Datatype rt, int r, MPI_Aint d,
                                        MPI_Count tc, MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->get_accumulate_direct(o, oc, ot, res, rc, rt, r, d, tc, tt, op)) return MPI_SUCCESS;
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, nullptr, w != nullptr);
}
OSPREY_ALIAS(MPI_Get_accumulate_c)

OSPREY_EXPORT int PMPI_Rget_accumulate(const void* o, int oc, MPI_Datatype ot, void* res, int rc,
                                       MPI_Datatype rt, int r, MPI_Aint d, int tc, MPI_Datatype tt,
                                       MPI_Op op, MPI_Win win, MPI_Request* req) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, req, true);
}
OSPREY_ALIAS(MPI_Rget_accumulate)

OSPREY_EXPORT int PMPI_Rget_accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, void* res,
                                         MPI_Count rc, MPI_Datatype rt, int r, MPI_Aint d,
                                         MPI_Count tc, MPI_Datatype tt, MPI_Op op, MPI_Win win,
                                         MPI_Request* req) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, req, true);
}
OSPREY_ALIAS(MPI_Rget_accumulate_c)

OSPREY_EXPORT int PMPI_Fetch_and_op(const void* o, void* res, MPI_Datatype t, int r, MPI_Aint d,
                                    MPI_Op op, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->fetch_and_op_direct(o, res, t, r, d, op)) return MPI_SUCCESS;
  return fop(o, res, t, r, d, op, win, w != nullptr);
}
OSPREY_ALIAS(MPI_Fetch_and_op)

OSPREY_EXPORT int PMPI_Compare_and_swap(const void* o, const void* cmp, void* res, MPI_Datatype t,
                                        int r, MPI_Aint d, MPI_Win win) {
  rma::Window* w = rma::cached_window(win);
  if (w && w->compare_and_swap_direct(o, cmp, res, t, r, d)) return MPI_SUCCESS;
  return cas(o, cmp, res, t, r, d, win, w != nullptr);
}
OSPREY_ALIAS(MPI_Compare_and_swap)
