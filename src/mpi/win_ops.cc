// Communication calls, with their request-based and MPI-4 large-count forms. Each form is
// the same engine call; request-based ones first check that a passive epoch is open.
#include "mpi/binding.h"
#include "mpi/requests.h"

using namespace osprey;

namespace {

// Request-based calls first check that a passive epoch is open.
#define OSPREY_CHECK_REQUEST(w, req)                         \
  if (req) {                                                \
    Status rs_ = (w)->check_request_epoch();                \
    if (!rs_.ok()) return binding::finish((w), rs_);        \
  }

// The return of a communication call; request-based ones hand back a request.
inline int done(rma::Window* w, const Status& s, MPI_Request* req) {
  if (!s.ok()) return binding::finish(w, s);
  return req ? binding::completed_request(req) : MPI_SUCCESS;
}

template <class C>
int put(const void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc, MPI_Datatype tt,
        MPI_Win win, MPI_Request* req) {
  OSPREY_WINDOW(w, win);
  OSPREY_CHECK_REQUEST(w, req);
  return done(w, w->put(o, oc, ot, r, d, tc, tt), req);
}

template <class C>
int get(void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc, MPI_Datatype tt, MPI_Win win,
        MPI_Request* req) {
  OSPREY_WINDOW(w, win);
  OSPREY_CHECK_REQUEST(w, req);
  return done(w, w->get(o, oc, ot, r, d, tc, tt), req);
}

template <class C>
int acc(const void* o, C oc, MPI_Datatype ot, int r, MPI_Aint d, C tc, MPI_Datatype tt,
        MPI_Op op, MPI_Win win, MPI_Request* req) {
  OSPREY_WINDOW(w, win);
  OSPREY_CHECK_REQUEST(w, req);
  return done(w, w->accumulate(o, oc, ot, r, d, tc, tt, op), req);
}

template <class C>
int get_acc(const void* o, C oc, MPI_Datatype ot, void* res, C rc, MPI_Datatype rt, int r,
            MPI_Aint d, C tc, MPI_Datatype tt, MPI_Op op, MPI_Win win, MPI_Request* req) {
  OSPREY_WINDOW(w, win);
  OSPREY_CHECK_REQUEST(w, req);
  return done(w, w->get_accumulate(o, oc, ot, res, rc, rt, r, d, tc, tt, op), req);
}

}  // namespace

OSPREY_EXPORT int PMPI_Put(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                           MPI_Datatype tt, MPI_Win win) {
  return put(o, oc, ot, r, d, tc, tt, win, nullptr);
}
OSPREY_ALIAS(MPI_Put)

OSPREY_EXPORT int PMPI_Put_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                             MPI_Count tc, MPI_Datatype tt, MPI_Win win) {
  return put(o, oc, ot, r, d, tc, tt, win, nullptr);
}
OSPREY_ALIAS(MPI_Put_c)

OSPREY_EXPORT int PMPI_Rput(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                            MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return put(o, oc, ot, r, d, tc, tt, win, req);
}
OSPREY_ALIAS(MPI_Rput)

OSPREY_EXPORT int PMPI_Rput_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                              MPI_Count tc, MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return put(o, oc, ot, r, d, tc, tt, win, req);
}
OSPREY_ALIAS(MPI_Rput_c)

OSPREY_EXPORT int PMPI_Get(void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                           MPI_Datatype tt, MPI_Win win) {
  return get(o, oc, ot, r, d, tc, tt, win, nullptr);
}
OSPREY_ALIAS(MPI_Get)

OSPREY_EXPORT int PMPI_Get_c(void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                             MPI_Count tc, MPI_Datatype tt, MPI_Win win) {
  return get(o, oc, ot, r, d, tc, tt, win, nullptr);
}
OSPREY_ALIAS(MPI_Get_c)

OSPREY_EXPORT int PMPI_Rget(void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc,
                            MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return get(o, oc, ot, r, d, tc, tt, win, req);
}
OSPREY_ALIAS(MPI_Rget)

OSPREY_EXPORT int PMPI_Rget_c(void* o, MPI_Count oc, MPI_Datatype ot, int r, MPI_Aint d,
                              MPI_Count tc, MPI_Datatype tt, MPI_Win win, MPI_Request* req) {
  return get(o, oc, ot, r, d, tc, tt, win, req);
}
OSPREY_ALIAS(MPI_Rget_c)

OSPREY_EXPORT int PMPI_Accumulate(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d,
                                  int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, nullptr);
}
OSPREY_ALIAS(MPI_Accumulate)

OSPREY_EXPORT int PMPI_Accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r,
                                    MPI_Aint d, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
                                    MPI_Win win) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, nullptr);
}
OSPREY_ALIAS(MPI_Accumulate_c)

OSPREY_EXPORT int PMPI_Raccumulate(const void* o, int oc, MPI_Datatype ot, int r, MPI_Aint d,
                                   int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win,
                                   MPI_Request* req) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, req);
}
OSPREY_ALIAS(MPI_Raccumulate)

OSPREY_EXPORT int PMPI_Raccumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, int r,
                                     MPI_Aint d, MPI_Count tc, MPI_Datatype tt, MPI_Op op,
                                     MPI_Win win, MPI_Request* req) {
  return acc(o, oc, ot, r, d, tc, tt, op, win, req);
}
OSPREY_ALIAS(MPI_Raccumulate_c)

OSPREY_EXPORT int PMPI_Get_accumulate(const void* o, int oc, MPI_Datatype ot, void* res, int rc,
                                      MPI_Datatype rt, int r, MPI_Aint d, int tc,
                                      MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, nullptr);
}
OSPREY_ALIAS(MPI_Get_accumulate)

OSPREY_EXPORT int PMPI_Get_accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, void* res,
                                        MPI_Count rc, MPI_Datatype rt, int r, MPI_Aint d,
                                        MPI_Count tc, MPI_Datatype tt, MPI_Op op, MPI_Win win) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, nullptr);
}
OSPREY_ALIAS(MPI_Get_accumulate_c)

OSPREY_EXPORT int PMPI_Rget_accumulate(const void* o, int oc, MPI_Datatype ot, void* res, int rc,
                                       MPI_Datatype rt, int r, MPI_Aint d, int tc,
                                       MPI_Datatype tt, MPI_Op op, MPI_Win win,
                                       MPI_Request* req) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, req);
}
OSPREY_ALIAS(MPI_Rget_accumulate)

OSPREY_EXPORT int PMPI_Rget_accumulate_c(const void* o, MPI_Count oc, MPI_Datatype ot, void* res,
                                         MPI_Count rc, MPI_Datatype rt, int r, MPI_Aint d,
                                         MPI_Count tc, MPI_Datatype tt, MPI_Op op, MPI_Win win,
                                         MPI_Request* req) {
  return get_acc(o, oc, ot, res, rc, rt, r, d, tc, tt, op, win, req);
}
OSPREY_ALIAS(MPI_Rget_accumulate_c)

OSPREY_EXPORT int PMPI_Fetch_and_op(const void* o, void* res, MPI_Datatype t, int r, MPI_Aint d,
                                    MPI_Op op, MPI_Win win) {
  OSPREY_WINDOW(w, win);
  return done(w, w->fetch_and_op(o, res, t, r, d, op), nullptr);
}
OSPREY_ALIAS(MPI_Fetch_and_op)

OSPREY_EXPORT int PMPI_Compare_and_swap(const void* o, const void* cmp, void* res, MPI_Datatype t,
                                        int r, MPI_Aint d, MPI_Win win) {
  OSPREY_WINDOW(w, win);
  return done(w, w->compare_and_swap(o, cmp, res, t, r, d), nullptr);
}
OSPREY_ALIAS(MPI_Compare_and_swap)
