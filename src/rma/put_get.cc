// MPI_Put and MPI_Get (and their request-based and large-count forms, through the binding):
// checks, then the target's path moves the bytes.
#include "datatype/runs.h"
#include "rma/window.h"

namespace osprey::rma {
namespace {

// Checks counts and datatypes of a transfer and that both sides carry the same bytes.
Status check_pair(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount, MPI_Datatype ttype,
                  const dt::TypeInfo** ot, const dt::TypeInfo** tt) {
  if (ocount < 0 || tcount < 0) return Err(MPI_ERR_COUNT, "osprey: negative count");
  Status s = kOk;
  if (!(*ot = dt::lookup(otype, &s))) return s;
  // One layout on both sides (a strided copy between equal layouts): one lookup and one check
  // (the second lookup was a tenth of such a put's own work).
  if (ttype == otype && tcount == ocount) {
    *tt = *ot;
    if (!dt::count_fits(ocount, **ot))
      return Err(MPI_ERR_COUNT, "osprey: count too large for its datatype");
    return kOk;
  }
  if (!(*tt = dt::lookup(ttype, &s))) return s;
  if (!dt::count_fits(ocount, **ot) || !dt::count_fits(tcount, **tt))
    return Err(MPI_ERR_COUNT, "osprey: count too large for its datatype");
  if (dt::data_bytes(ocount, **ot) != dt::data_bytes(tcount, **tt))
    return Err(MPI_ERR_TYPE, "osprey: origin and target data differ in size");
  return kOk;
}

}  // namespace

// The general forms' fast case below, without their second window lookup and status plumbing
// (a reused 8x64 vector's put + flush trailed Open MPI's by a tenth, its same-type copy being
// Open MPI's fastest). A type not decoded yet is decoded here; anything else goes on to them.
bool Window::same_type_direct(char* origin, MPI_Count count, MPI_Datatype type, int rank,
                              MPI_Aint disp, bool put) {
  if (count <= 0) return false;  // (an error or nothing to move: the general form's to say)
  Status s;
  const dt::TypeInfo* t = dt::detail::lookup_derived(type, &s);
  if (!t || !t->size || !dt::count_fits(count, *t)) return false;
  char* p = fast_typed_address(rank, disp, count, *t);
  if (!p) return false;
  if (put)
    dt::copy(p, count, *t, origin, count, *t);
  else
    dt::copy(origin, count, *t, p, count, *t);
  return true;
}

Status Window::put_general(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Request* req) {
  const dt::TypeInfo *ot, *tt;
  OSPREY_TRY(check_pair(ocount, otype, tcount, ttype, &ot, &tt));
  if (rank == MPI_PROC_NULL) return kOk;
  if (!req && tt->size)
    if (char* dst = fast_typed_address(rank, disp, tcount, *tt)) {
      dt::copy(dst, tcount, *tt, origin, ocount, *ot);
      return kOk;
    }
  // (Set up only here: zeroing the whole operation cost a derived-type put a tenth.)
  RmaOp op;
  op.otype = ot;
  op.ttype = tt;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  OSPREY_TRY(locate(t, disp, tcount, *op.ttype, &op.where));
  if (dt::data_bytes(ocount, *op.otype) == 0) return kOk;
  op.origin = origin;
  op.ocount = ocount;
  op.tcount = tcount;
  op.req = req;
  return t.path->put(*this, t, op);
}

Status Window::get_general(void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Request* req) {
  const dt::TypeInfo *ot, *tt;
  OSPREY_TRY(check_pair(ocount, otype, tcount, ttype, &ot, &tt));
  if (rank == MPI_PROC_NULL) return kOk;
  if (!req && tt->size)
    if (const char* src = fast_typed_address(rank, disp, tcount, *tt)) {
      dt::copy(origin, ocount, *ot, src, tcount, *tt);
      return kOk;
    }
  RmaOp op;
  op.otype = ot;
  op.ttype = tt;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  OSPREY_TRY(locate(t, disp, tcount, *op.ttype, &op.where));
  if (dt::data_bytes(ocount, *op.otype) == 0) return kOk;
  op.origin = origin;  // where the data goes
  op.ocount = ocount;
  op.tcount = tcount;
  op.op = dt::Op::kNoOp;
  op.req = req;
  return t.path->get(*this, t, op);
}

}  // namespace osprey::rma
