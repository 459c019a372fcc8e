// MPI_Put and MPI_Get (and their request-based and large-count forms, through the binding).
#include <cstring>

#include "datatype/runs.h"
#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {
namespace {

// Checks counts and datatypes of a transfer and that both sides carry the same bytes.
Status check_pair(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount, MPI_Datatype ttype,
                  const dt::TypeInfo** ot, const dt::TypeInfo** tt) {
  if (ocount < 0 || tcount < 0) return Err(MPI_ERR_COUNT, "osprey: negative count");
  Status s = kOk;
  if (!(*ot = dt::lookup(otype, &s))) return s;
  if (!(*tt = dt::lookup(ttype, &s))) return s;
  if (dt::data_bytes(ocount, **ot) != dt::data_bytes(tcount, **tt))
    return Err(MPI_ERR_TYPE, "osprey: origin and target data differ in size");
  return kOk;
}

}  // namespace

Status Window::put_general(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Request* req) {
  const dt::TypeInfo *ot, *tt;
  OSPREY_TRY(check_pair(ocount, otype, tcount, ttype, &ot, &tt));
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  uint64_t where;
  OSPREY_TRY(locate(t, disp, tcount, *tt, &where));
  const std::size_t n = dt::data_bytes(ocount, *ot);
  if (n == 0) return kOk;
  if (t.path == Path::kAm)
    return am_post(t, am::Kind::kPut, dt::Op::kReplace, where, origin, ocount, ot, nullptr, 0,
                   nullptr, tcount, tt, nullptr, req);
  if (t.path == Path::kDirect && ot->dense && tt->dense) {
    std::memmove(direct_address(t, where) + tt->true_lb,
                 static_cast<const char*>(origin) + ot->true_lb, n);
    return kOk;
  }
  return write_target(t, where, tcount, *tt, origin, ocount, *ot);
}

Status Window::get_general(void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Request* req) {
  const dt::TypeInfo *ot, *tt;
  OSPREY_TRY(check_pair(ocount, otype, tcount, ttype, &ot, &tt));
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  uint64_t where;
  OSPREY_TRY(locate(t, disp, tcount, *tt, &where));
  const std::size_t n = dt::data_bytes(ocount, *ot);
  if (n == 0) return kOk;
  if (t.path == Path::kAm)
    return am_post(t, am::Kind::kGet, dt::Op::kNoOp, where, origin, ocount, ot, nullptr, 0, nullptr,
                   tcount, tt, nullptr, req);
  if (t.path == Path::kDirect && ot->dense && tt->dense) {
    std::memmove(static_cast<char*>(origin) + ot->true_lb, direct_address(t, where) + tt->true_lb,
                 n);
    return kOk;
  }
  return read_target(t, where, tcount, *tt, origin, ocount, *ot);
}

}  // namespace osprey::rma
