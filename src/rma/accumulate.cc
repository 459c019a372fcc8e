// MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap on node-local
// targets. Operations apply in program order (the default accumulate_ordering) because each
// completes when issued.
//
// Atomicity, the same on every path (the message-path target applies through here too):
// - each basic element is updated atomically against every other update of it: a CPU atomic
//   on memory mapped here where the element allows one, else under the element's lock stripe;
// - an operation on more than one element holds its target rank's whole-operation lock
//   (shm::AccLock) throughout, so it applies as a whole against every other such operation:
//   a reader never sees two writers mixed (the standard promises per-element atomicity only,
//   but MPICH and Open MPI give this, and programs that swap 16-byte pointers rely on it).
// Single-element operations (fetch_and_op, compare_and_swap, one-element accumulates) take no
// whole-operation lock: being one atomic step on one element, they order themselves against
// a multi-element operation at that element, which keeps them lock-free. On every kind of
// memory (segment, MPI_Alloc_mem, a rank's private memory) an operation on more than one
// element (more than a few on crowded nodes) runs as plain loops, without stripes, while
// single-element operations at its target rank are held off (acc_gate.h).
#include <cstring>

#include "datatype/apply.h"
#include "datatype/elements.h"
#include "datatype/runs.h"
#include "rma/acc_gate.h"
#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {
namespace {

bool compatible(const dt::TypeInfo& a, const dt::TypeInfo& b) {
  return a.cat == b.cat && a.repr == b.repr && a.elem_size == b.elem_size;
}

// The types of an accumulate-style call: origin (unless NO_OP), target, result (optional).
struct AccTypes {
  const dt::TypeInfo* origin = nullptr;
  const dt::TypeInfo* target = nullptr;
  const dt::TypeInfo* result = nullptr;
};

Status check_acc(dt::Op op, MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                 MPI_Datatype ttype, const MPI_Count* rcount, MPI_Datatype rtype, AccTypes& ty) {
  if (ocount < 0 || tcount < 0 || (rcount && *rcount < 0))
    return Err(MPI_ERR_COUNT, "osprey: negative count");
  Status s = kOk;
  if (!(ty.target = dt::lookup(ttype, &s))) return s;
  OSPREY_TRY(dt::check_op(op, *ty.target));
  if (!dt::count_fits(tcount, *ty.target))
    return Err(MPI_ERR_COUNT, "osprey: count too large for its datatype");
  const std::size_t tbytes = dt::data_bytes(tcount, *ty.target);
  if (op != dt::Op::kNoOp) {
    if (!(ty.origin = dt::lookup(otype, &s))) return s;
    OSPREY_TRY(dt::check_op(op, *ty.origin));
    if (!dt::count_fits(ocount, *ty.origin))
      return Err(MPI_ERR_COUNT, "osprey: count too large for its datatype");
    if (tbytes && !compatible(*ty.origin, *ty.target))
      return Err(MPI_ERR_TYPE, "osprey: origin and target are made of different basic types");
    if (dt::data_bytes(ocount, *ty.origin) != tbytes)
      return Err(MPI_ERR_TYPE, "osprey: origin and target data differ in size");
  }
  if (rcount) {
    if (!(ty.result = dt::lookup(rtype, &s))) return s;
    if (!dt::count_fits(*rcount, *ty.result))
      return Err(MPI_ERR_COUNT, "osprey: count too large for its datatype");
    if (ty.result->cat == dt::Category::kMixed)
      return Err(MPI_ERR_TYPE,
                 "osprey: result datatype must be built from one predefined datatype");
    if (tbytes && !compatible(*ty.result, *ty.target))
      return Err(MPI_ERR_TYPE, "osprey: result and target are made of different basic types");
    if (dt::data_bytes(*rcount, *ty.result) != tbytes)
      return Err(MPI_ERR_TYPE, "osprey: result and target data differ in size");
  }
  return kOk;
}

}  // namespace

// The key of an element for the lock stripes, the same in every process: its segment offset
// for segment memory, else its address in the owner's address space.
uint64_t Window::stripe_key(const TargetView& t, const char* elem) const {
  if (t.cpu_atomics && !t.remote_base) return static_cast<uint64_t>(elem - view_.base());
  if (t.cpu_atomics) return t.remote_base + static_cast<uint64_t>(elem - t.base);  // Alloc_mem
  return reinterpret_cast<uint64_t>(elem);
}

void Window::apply_mapped(const TargetView& t, dt::Repr r, uint32_t n, dt::Op op, char* te,
                          const char* oe, char* re) {
  if (t.cpu_atomics && dt::lock_free(r, n, te)) {
    dt::apply_atomic(r, n, op, te, oe, re);
    return;
  }
  const std::size_t s = stripes_.index(t.local, stripe_key(t, te));
  stripes_.lock(s);
  dt::apply_plain(r, n, op, te, oe, re);
  stripes_.unlock(s);
}

void Window::cas_mapped(const TargetView& t, dt::Repr r, uint32_t n, char* te, const void* origin,
                        const void* compare, void* result) {
  SingleOpGuard single(view_, node_rank_, static_cast<uint32_t>(t.local));
  if (t.cpu_atomics && dt::lock_free(r, n, te)) {
    dt::cas_atomic(r, n, te, origin, compare, result);
    return;
  }
  const std::size_t s = stripes_.index(t.local, stripe_key(t, te));
  stripes_.lock(s);
  dt::cas_plain(r, n, te, origin, compare, result);
  stripes_.unlock(s);
}

Status Window::apply_direct(const TargetView& t, const RmaOp& op) {
  const dt::TypeInfo& tt = *op.ttype;
  const std::size_t bytes = dt::data_bytes(op.tcount, tt);
  if (bytes == 0) return kOk;
  const std::size_t elems = bytes / tt.elem_size;
  if (elems >= bulk_min_ || (t.spans_shared && elems > 1)) {
    apply_bulk(t, op);
    return kOk;
  }
  const uint32_t local = static_cast<uint32_t>(t.local);
  WholeOpGuard whole(view_.acc(local), elems > 1);
  SingleOpGuard single(view_, node_rank_, local, elems == 1);
  if (elems == 1 && tt.dense && (!op.otype || op.otype->dense) && (!op.rtype || op.rtype->dense)) {
    // One element, contiguous on every side (every fetch_and_op the message path serves): its
    // address without the cursors' walk, a third of what the target spent on one.
    char* te = direct_address(t, op.where) + tt.true_lb;
    const char* oe = op.otype ? static_cast<const char*>(op.origin) + op.otype->true_lb : nullptr;
    char* re = op.rtype ? static_cast<char*>(op.result) + op.rtype->true_lb : nullptr;
    apply_mapped(t, tt.repr, tt.elem_size, op.op, te, oe, re);
    return kOk;
  }
  dt::ElementCursor oc(op.origin, op.otype ? op.ocount : 0, op.otype ? *op.otype : tt);
  dt::ElementCursor rc(op.result, op.rtype ? op.rcount : 0, op.rtype ? *op.rtype : tt);
  dt::ElementCursor tc(direct_address(t, op.where), op.tcount, tt);
  char *oe = nullptr, *re = nullptr, *te = nullptr;
  while (tc.next(te)) {
    if (op.otype) oc.next(oe);
    if (op.rtype) rc.next(re);
    apply_mapped(t, tt.repr, tt.elem_size, op.op, te, oe, re);
  }
  return kOk;
}

void Window::apply_bulk(const TargetView& t, const RmaOp& op) {
  const dt::TypeInfo& tt = *op.ttype;
  const dt::Repr r = tt.repr;
  const uint32_t n = tt.elem_size;
  const std::ptrdiff_t step = dt::element_bytes(r, n);
  BulkOpGuard bulk(view_, static_cast<uint32_t>(t.local));
  char* target = direct_address(t, op.where);
  if (tt.dense && (!op.otype || op.otype->dense) && (!op.rtype || op.rtype->dense) && step == n) {
    // One contiguous array on every side (predefined types, contiguous ones): no walk.
    const char* origin =
        op.otype ? static_cast<const char*>(op.origin) + op.otype->true_lb : nullptr;
    char* result = op.rtype ? static_cast<char*>(op.result) + op.rtype->true_lb : nullptr;
    char* te = target + tt.true_lb;
    dt::apply_plain_array(r, n, op.op, te, origin ? origin : te, dt::data_bytes(op.tcount, tt) / n,
                          result);
    return;
  }
  dt::ElementCursor oc(op.origin, op.otype ? op.ocount : 0, op.otype ? *op.otype : tt);
  dt::ElementCursor rc(op.result, op.rtype ? op.rcount : 0, op.rtype ? *op.rtype : tt);
  dt::ElementCursor tc(target, op.tcount, tt);
  // Spans of elements that follow each other in target, origin and result alike go to one
  // plain loop each.
  char *ts = nullptr, *os = nullptr, *rs = nullptr;
  std::size_t k = 0;
  auto run = [&] {
    if (k) dt::apply_plain_array(r, n, op.op, ts, os ? os : ts, k, rs);
  };
  char *te = nullptr, *oe = nullptr, *re = nullptr;
  while (tc.next(te)) {
    if (op.otype) oc.next(oe);
    if (op.rtype) rc.next(re);
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(k) * step;
    if (k && te == ts + at && (!oe || oe == os + at) && (!re || re == rs + at)) {
      ++k;
      continue;
    }
    run();
    ts = te;
    os = oe;
    rs = re;
    k = 1;
  }
  run();
}

Status Window::accumulate_general(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                  int rank, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                                  MPI_Op mop, MPI_Request* req) {
  RmaOp op;
  op.op = dt::to_op(mop);
  AccTypes ty;
  OSPREY_TRY(check_acc(op.op, ocount, otype, tcount, ttype, nullptr, MPI_DATATYPE_NULL, ty));
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  OSPREY_TRY(locate(t, disp, tcount, *ty.target, &op.where));
  if (op.op == dt::Op::kNoOp || dt::data_bytes(tcount, *ty.target) == 0) return kOk;
  op.origin = origin;
  op.ocount = ocount;
  op.otype = ty.origin;
  op.tcount = tcount;
  op.ttype = ty.target;
  op.req = req;
  return t.path->accumulate(*this, t, op);
}

Status Window::get_accumulate_general(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                      void* result, MPI_Count rcount, MPI_Datatype rtype, int rank,
                                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                                      MPI_Op mop, MPI_Request* req) {
  RmaOp op;
  op.op = dt::to_op(mop);
  AccTypes ty;
  OSPREY_TRY(check_acc(op.op, ocount, otype, tcount, ttype, &rcount, rtype, ty));
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  OSPREY_TRY(locate(t, disp, tcount, *ty.target, &op.where));
  if (dt::data_bytes(tcount, *ty.target) == 0) return kOk;
  op.origin = origin;
  op.ocount = ocount;
  op.otype = ty.origin;
  op.result = result;
  op.rcount = rcount;
  op.rtype = ty.result;
  op.tcount = tcount;
  op.ttype = ty.target;
  op.req = req;
  return t.path->accumulate(*this, t, op);
}

Status Window::fetch_and_op_general(const void* origin, void* result, MPI_Datatype type, int rank,
                                    MPI_Aint disp, MPI_Op mop) {
  RmaOp op;
  op.op = dt::to_op(mop);
  Status s = kOk;
  const dt::TypeInfo* ti = dt::lookup(type, &s);
  if (!ti) return s;
  if (!ti->predefined)
    return Err(MPI_ERR_TYPE, "osprey: MPI_Fetch_and_op takes a predefined datatype");
  OSPREY_TRY(dt::check_op(op.op, *ti));
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  OSPREY_TRY(locate(t, disp, 1, *ti, &op.where));
  const bool no_op = op.op == dt::Op::kNoOp;
  op.origin = no_op ? nullptr : origin;
  op.ocount = 1;
  op.otype = no_op ? nullptr : ti;
  op.result = result;
  op.rcount = 1;
  op.rtype = ti;
  op.tcount = 1;
  op.ttype = ti;
  return t.path->accumulate(*this, t, op);
}

Status Window::compare_and_swap_general(const void* origin, const void* compare, void* result,
                                        MPI_Datatype type, int rank, MPI_Aint disp) {
  Status s = kOk;
  const dt::TypeInfo* ti = dt::lookup(type, &s);
  if (!ti) return s;
  if (!ti->predefined || (ti->cat != dt::Category::kInteger && ti->cat != dt::Category::kLogical &&
                          ti->cat != dt::Category::kByte))
    return Err(MPI_ERR_TYPE,
               "osprey: MPI_Compare_and_swap takes a predefined integer, logical or byte type");
  if (rank == MPI_PROC_NULL) return kOk;
  TargetView t;
  OSPREY_TRY(target(rank, t));
  OSPREY_TRY(check_access(t));
  RmaOp op;
  OSPREY_TRY(locate(t, disp, 1, *ti, &op.where));
  op.origin = origin;
  op.ocount = 1;
  op.otype = ti;
  op.result = result;
  op.rcount = 1;
  op.rtype = ti;
  op.tcount = 1;
  op.ttype = ti;
  op.compare = compare;
  return t.path->compare_and_swap(*this, t, op);
}

void Window::bulk_accumulate(uint32_t local, dt::Repr r, uint32_t elem_size, dt::Op o, char* te,
                             const char* oe, std::size_t n_elems) {
  BulkOpGuard bulk(view_, local);
  dt::apply_plain_array(r, elem_size, o, te, oe, n_elems);
}

}  // namespace osprey::rma
