// Target progress on MPICH, which has no progress hook a library can use: while a process that
// is a target of the message path sits in a blocking host call, requests addressed to it would
// wait. So the blocking calls a target typically sits in become their nonblocking form plus a
// loop that also runs osprey's progress engine.
//
// Which form a call takes must never change which calls match across ranks. A blocking
// collective never matches a nonblocking one (MPI-3.1 5.12), so whether collectives take the
// nonblocking form is decided once for the whole job, the same on every rank, whatever windows
// exist: from the configuration and, by default, from what MPI_Init found (rma/runtime.h): a
// job that can never use the message path (one node, cross-memory attach working) leaves them
// alone and pays nothing. Point-to-point calls and waits match alike in either form, so they
// loop only where a message endpoint exists here. Waits and tests always run progress where an
// endpoint exists, since request-based RMA operations complete only through it (even with
// OSPREY_INTERPOSE_BLOCKING=0).
//
// Only the MPI_ names are defined: osprey's own PMPI_ calls, and tools that call PMPI_, reach
// the host directly.
#include "mpi/binding.h"
#include "mpi/blocking_wait.h"
#include "progress/backoff.h"
#include "progress/host_wait.h"
#include "rma/comm_info.h"
#include "rma/runtime.h"
#include "util/config.h"

using namespace osprey;

namespace {

// Collectives: the same answer on every rank, for the whole run.
bool collectives_engaged() {
  return switched_on(config().interpose_blocking, rma::job_may_use_messages());
}

// Blocking point-to-point: only where requests may arrive.
bool p2p_engaged() {
  return config().interpose_blocking != Switch::kOff && rma::am_endpoints_exist();
}

// Waits and tests: wherever osprey has message-path work to advance.
bool waits_engaged() {
  return rma::am_endpoints_exist();
}

// `c`: the communicator of the request, MPI_COMM_NULL if not known.
int finish_one(MPI_Request* req, MPI_Status* status, MPI_Comm c) {
  return binding::finish_blocking(req, status, c);
}

}  // namespace

// --- point to point ---

OSPREY_EXPORT int MPI_Send(const void* buf, int count, MPI_Datatype t, int dest, int tag,
                           MPI_Comm c) {
  if (!p2p_engaged()) return PMPI_Send(buf, count, t, dest, tag, c);
  MPI_Request r;
  if (int rc = PMPI_Isend(buf, count, t, dest, tag, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Ssend(const void* buf, int count, MPI_Datatype t, int dest, int tag,
                            MPI_Comm c) {
  if (!p2p_engaged()) return PMPI_Ssend(buf, count, t, dest, tag, c);
  MPI_Request r;
  if (int rc = PMPI_Issend(buf, count, t, dest, tag, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c,
                           MPI_Status* st) {
  if (!p2p_engaged()) return PMPI_Recv(buf, count, t, src, tag, c, st);
  MPI_Request r;
  if (int rc = PMPI_Irecv(buf, count, t, src, tag, c, &r); rc) return rc;
  return finish_one(&r, st, c);
}

OSPREY_EXPORT int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                               void* rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
                               MPI_Comm c, MPI_Status* st) {
  if (!p2p_engaged())
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, c, st);
  MPI_Request r[2];
  if (int rc = PMPI_Irecv(rbuf, rcount, rtype, src, rtag, c, &r[0]); rc) return rc;
  if (int rc = PMPI_Isend(sbuf, scount, stype, dest, stag, c, &r[1]); rc) {
    PMPI_Cancel(&r[0]);
    PMPI_Request_free(&r[0]);
    return rc;
  }
  if (int rc = finish_one(&r[1], MPI_STATUS_IGNORE, c); rc) {
    PMPI_Cancel(&r[0]);
    PMPI_Request_free(&r[0]);
    return rc;
  }
  return finish_one(&r[0], st, c);
}

OSPREY_EXPORT int MPI_Probe(int src, int tag, MPI_Comm c, MPI_Status* st) {
  if (!p2p_engaged()) return PMPI_Probe(src, tag, c, st);
  int flag = 0;
  progress::Backoff b;
  for (;;) {
    if (int rc = PMPI_Iprobe(src, tag, c, &flag, st); rc || flag) return rc;
    if (progress::poll())
      b.reset();
    else
      b.pause();
  }
}

OSPREY_EXPORT int MPI_Mprobe(int src, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st) {
  if (!p2p_engaged()) return PMPI_Mprobe(src, tag, c, m, st);
  int flag = 0;
  progress::Backoff b;
  for (;;) {
    if (int rc = PMPI_Improbe(src, tag, c, &flag, m, st); rc || flag) return rc;
    if (progress::poll())
      b.reset();
    else
      b.pause();
  }
}

OSPREY_EXPORT int MPI_Mrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  if (!p2p_engaged()) return PMPI_Mrecv(buf, count, t, m, st);
  MPI_Request r;
  if (int rc = PMPI_Imrecv(buf, count, t, m, &r); rc) return rc;
  return finish_one(&r, st, MPI_COMM_NULL);
}

// --- completion ---

OSPREY_EXPORT int MPI_Wait(MPI_Request* r, MPI_Status* st) {
  if (!waits_engaged()) return PMPI_Wait(r, st);
  return finish_one(r, st, MPI_COMM_NULL);
}

OSPREY_EXPORT int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  if (!waits_engaged()) return PMPI_Waitall(n, rs, sts);
  int flag = 0;
  progress::Backoff b;
  for (;;) {
    if (int rc = PMPI_Testall(n, rs, &flag, sts); rc || flag) return rc;
    if (progress::poll())
      b.reset();
    else
      b.pause();
  }
}

OSPREY_EXPORT int MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  if (!waits_engaged()) return PMPI_Waitany(n, rs, index, st);
  int flag = 0;
  progress::Backoff b;
  for (;;) {
    if (int rc = PMPI_Testany(n, rs, index, &flag, st); rc || flag) return rc;
    if (progress::poll())
      b.reset();
    else
      b.pause();
  }
}

OSPREY_EXPORT int MPI_Waitsome(int n, MPI_Request rs[], int* outcount, int idx[],
                               MPI_Status sts[]) {
  if (!waits_engaged()) return PMPI_Waitsome(n, rs, outcount, idx, sts);
  progress::Backoff b;
  for (;;) {
    if (int rc = PMPI_Testsome(n, rs, outcount, idx, sts); rc || *outcount != 0) return rc;
    if (progress::poll())
      b.reset();
    else
      b.pause();
  }
}

// Tests run osprey's progress first, so a loop of MPI_Test on an MPI_Rget request advances.
OSPREY_EXPORT int MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  if (waits_engaged()) progress::poll();
  return PMPI_Test(r, flag, st);
}

OSPREY_EXPORT int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  if (waits_engaged()) progress::poll();
  return PMPI_Testall(n, rs, flag, sts);
}

OSPREY_EXPORT int MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  if (waits_engaged()) progress::poll();
  return PMPI_Testany(n, rs, index, flag, st);
}

OSPREY_EXPORT int MPI_Testsome(int n, MPI_Request rs[], int* outcount, int idx[],
                               MPI_Status sts[]) {
  if (waits_engaged()) progress::poll();
  return PMPI_Testsome(n, rs, outcount, idx, sts);
}

OSPREY_EXPORT int MPI_Request_get_status(MPI_Request r, int* flag, MPI_Status* st) {
  if (waits_engaged()) progress::poll();
  return PMPI_Request_get_status(r, flag, st);
}

// --- collectives ---

OSPREY_EXPORT int MPI_Barrier(MPI_Comm c) {
  // A communicator on one node: a barrier on shared memory (rma/comm_barrier.cc).
  if (rma::node_barrier(c)) return MPI_SUCCESS;
  if (!collectives_engaged()) return PMPI_Barrier(c);
  MPI_Request r;
  if (int rc = PMPI_Ibarrier(c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Bcast(buf, count, t, root, c);
  MPI_Request r;
  if (int rc = PMPI_Ibcast(buf, count, t, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Reduce(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op, int root,
                             MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Reduce(s, d, n, t, op, root, c);
  MPI_Request r;
  if (int rc = PMPI_Ireduce(s, d, n, t, op, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Allreduce(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op,
                                MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Allreduce(s, d, n, t, op, c);
  MPI_Request r;
  if (int rc = PMPI_Iallreduce(s, d, n, t, op, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Gather(const void* s, int sn, MPI_Datatype st, void* d, int dn,
                             MPI_Datatype dt, int root, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Gather(s, sn, st, d, dn, dt, root, c);
  MPI_Request r;
  if (int rc = PMPI_Igather(s, sn, st, d, dn, dt, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Gatherv(const void* s, int sn, MPI_Datatype st, void* d, const int dn[],
                              const int displs[], MPI_Datatype dt, int root, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Gatherv(s, sn, st, d, dn, displs, dt, root, c);
  MPI_Request r;
  if (int rc = PMPI_Igatherv(s, sn, st, d, dn, displs, dt, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Scatter(const void* s, int sn, MPI_Datatype st, void* d, int dn,
                              MPI_Datatype dt, int root, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Scatter(s, sn, st, d, dn, dt, root, c);
  MPI_Request r;
  if (int rc = PMPI_Iscatter(s, sn, st, d, dn, dt, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Scatterv(const void* s, const int sn[], const int displs[], MPI_Datatype st,
                               void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Scatterv(s, sn, displs, st, d, dn, dt, root, c);
  MPI_Request r;
  if (int rc = PMPI_Iscatterv(s, sn, displs, st, d, dn, dt, root, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* d, int dn,
                                MPI_Datatype dt, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Allgather(s, sn, st, d, dn, dt, c);
  MPI_Request r;
  if (int rc = PMPI_Iallgather(s, sn, st, d, dn, dt, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Allgatherv(const void* s, int sn, MPI_Datatype st, void* d, const int dn[],
                                 const int displs[], MPI_Datatype dt, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Allgatherv(s, sn, st, d, dn, displs, dt, c);
  MPI_Request r;
  if (int rc = PMPI_Iallgatherv(s, sn, st, d, dn, displs, dt, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Alltoall(const void* s, int sn, MPI_Datatype st, void* d, int dn,
                               MPI_Datatype dt, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Alltoall(s, sn, st, d, dn, dt, c);
  MPI_Request r;
  if (int rc = PMPI_Ialltoall(s, sn, st, d, dn, dt, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Alltoallv(const void* s, const int sn[], const int sd[], MPI_Datatype st,
                                void* d, const int dn[], const int dd[], MPI_Datatype dt,
                                MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Alltoallv(s, sn, sd, st, d, dn, dd, dt, c);
  MPI_Request r;
  if (int rc = PMPI_Ialltoallv(s, sn, sd, st, d, dn, dd, dt, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Reduce_scatter_block(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op,
                                           MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Reduce_scatter_block(s, d, n, t, op, c);
  MPI_Request r;
  if (int rc = PMPI_Ireduce_scatter_block(s, d, n, t, op, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Reduce_scatter(const void* s, void* d, const int n[], MPI_Datatype t,
                                     MPI_Op op, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Reduce_scatter(s, d, n, t, op, c);
  MPI_Request r;
  if (int rc = PMPI_Ireduce_scatter(s, d, n, t, op, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Scan(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Scan(s, d, n, t, op, c);
  MPI_Request r;
  if (int rc = PMPI_Iscan(s, d, n, t, op, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}

OSPREY_EXPORT int MPI_Exscan(const void* s, void* d, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  if (!collectives_engaged()) return PMPI_Exscan(s, d, n, t, op, c);
  MPI_Request r;
  if (int rc = PMPI_Iexscan(s, d, n, t, op, c, &r); rc) return rc;
  return finish_one(&r, MPI_STATUS_IGNORE, c);
}
