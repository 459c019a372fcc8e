// The cross-memory attach path: a node peer's private window memory (MPI_Win_create, dynamic
// windows), reached with process_vm_readv/writev. Small puts and all gets of dense data wait in the
// window's per-target queue (cma_queue.h) until the synchronization that completes them; every
// other operation toward the target first issues what waits there, so that operations toward
// one target happen in the order they were made. It cannot do atomics: accumulates read,
// combine and write back under the lock stripes of their elements (accumulate_cma.cc). Under
// fence and PSCW, small puts and accumulates (and under fence small gets, accumulates with a
// result and compare_and_swap) wait in the target's staging area for the target to apply them
// instead (acc_stage.h); an accumulate or compare_and_swap toward the target that does not stage
// first applies those itself. Puts and gets need not: MPI orders accumulates only, and a put or get
// touching what another operation of the epoch touches, without a flush between, is erroneous.
#include "datatype/apply.h"
#include "datatype/runs.h"
#include "rma/paths.h"
#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {

class CmaPath final : public NodePath {
 public:
  Status put(Window& w, const TargetView& t, const RmaOp& op) override {
    const Access a = w.access_.load(std::memory_order_relaxed);
    if (w.stage_.usable() && (a == Access::kFence || a == Access::kPscw) && dense(op) &&
        w.stage_.stage_put(t, op, dt::data_bytes(op.ocount, *op.otype)))
      return kOk;
    if (dense(op) && w.cma_queue_.takes_put(dt::data_bytes(op.ocount, *op.otype))) {
      return w.cma_queue_.put(t.local, t.pid, remote_address(t, op.where) + op.ttype->true_lb,
                              static_cast<const char*>(op.origin) + op.otype->true_lb,
                              dt::data_bytes(op.ocount, *op.otype));
    }
    OSPREY_TRY(w.cma_queue_.drain(t.local));
    return cma_move(true, t, op.where, op.tcount, *op.ttype, op.origin, op.ocount, *op.otype);
  }
  Status get(Window& w, const TargetView& t, const RmaOp& op) override {
    if (w.stage_.usable() && w.access_.load(std::memory_order_relaxed) == Access::kFence &&
        dense(op) && w.stage_.stage_fetch(t, op, dt::data_bytes(op.ocount, *op.otype)))
      return kOk;
    if (dense(op) && w.cma_queue_.takes_get()) {
      return w.cma_queue_.get(t.local, t.pid, remote_address(t, op.where) + op.ttype->true_lb,
                              static_cast<char*>(const_cast<void*>(op.origin)) + op.otype->true_lb,
                              dt::data_bytes(op.ocount, *op.otype));
    }
    OSPREY_TRY(w.cma_queue_.drain(t.local));
    return cma_move(false, t, op.where, op.tcount, *op.ttype, op.origin, op.ocount, *op.otype);
  }
  Status accumulate(Window& w, const TargetView& t, const RmaOp& op) override {
    const Access a = w.access_.load(std::memory_order_relaxed);
    if (w.stage_.usable() && !t.spans_shared && stageable(a, op) &&
        (op.rtype
             ? w.stage_.stage_fetch(t, op, dt::data_bytes(op.tcount, *op.ttype))
             : w.stage_.stage(t, op, dt::data_bytes(op.tcount, *op.ttype), a == Access::kFence)))
      return kOk;
    OSPREY_TRY(settle(w, t));
    OSPREY_TRY(w.cma_queue_.drain(t.local));
    Status answer;
    if (servable(t, op) && w.served_.offer(static_cast<uint32_t>(t.local)) &&
        w.served_.ask(static_cast<uint32_t>(t.local), served(ServedOp::kAcc, t, op), &answer))
      return answer;
    return w.apply_cma(t, op);
  }
  Status compare_and_swap(Window& w, const TargetView& t, const RmaOp& op) override {
    if (w.stage_.usable() && w.access_.load(std::memory_order_relaxed) == Access::kFence &&
        w.stage_.stage_cas(t, op))
      return kOk;
    OSPREY_TRY(settle(w, t));
    OSPREY_TRY(w.cma_queue_.drain(t.local));
    Status answer;
    if (op.ttype->elem_size <= ServedOps::kCompareMax &&
        w.served_.offer(static_cast<uint32_t>(t.local)) &&
        w.served_.ask(static_cast<uint32_t>(t.local), served(ServedOp::kCas, t, op), &answer))
      return answer;
    return w.cas_cma(t, op);
  }

  Status unlock(Window& w, const TargetView& t, LockEntry& e) override {
    const Status s = w.cma_queue_.drain(t.local, &w.served_);
    NodePath::unlock(w, t, e);  // the lock goes back even if an operation failed
    return s;
  }
  Status flush(Window& w, const TargetView& t, bool local_only) override {
    // flush_local too: a get's data is in the origin buffer only once it was issued.
    OSPREY_TRY(w.cma_queue_.drain(t.local, &w.served_));
    return NodePath::flush(w, t, local_only);
  }

 private:
  // This origin's accumulates staged toward t, applied now by the origin, after the puts and
  // gets queued before them, so that t sees them all in the order they were made.
  static Status settle(Window& w, const TargetView& t) {
    if (!w.stage_.pending()) return kOk;
    OSPREY_TRY(w.cma_queue_.drain(t.local));
    return w.stage_.settle(t);
  }
  // An accumulate-style operation the target may apply itself (served_ops.h): an array of
  // a few basic elements on every side.
  static bool servable(const TargetView& t, const RmaOp& op) {
    const dt::TypeInfo& tt = *op.ttype;
    return !t.spans_shared && tt.dense && (!op.otype || op.otype->dense) &&
           (!op.rtype || op.rtype->dense) &&
           dt::element_bytes(tt.repr, tt.elem_size) == tt.elem_size &&
           dt::data_bytes(op.tcount, tt) - 1 < ServedOps::kDataMax;
  }
  // The accumulate-style operation or compare_and_swap (one element; its compare operand)
  // as the target is asked to apply it.
  static ServedOp served(ServedOp::Kind kind, const TargetView& t, const RmaOp& op) {
    const dt::TypeInfo& tt = *op.ttype;
    ServedOp s;
    s.kind = kind;
    s.op = op.op;
    s.compare = op.compare;
    s.repr = tt.repr;
    s.elem_size = tt.elem_size;
    s.bytes = static_cast<uint32_t>(dt::data_bytes(op.tcount, tt));
    s.address = remote_address(t, op.where) + tt.true_lb;
    if (op.otype) s.data = static_cast<const char*>(op.origin) + op.otype->true_lb;
    if (op.rtype) s.result = static_cast<char*>(op.result) + op.rtype->true_lb;
    return s;
  }
  // Request-based operations complete at once (their request is then complete), and
  // non-dense layouts go straight through their own list of ranges.
  static bool dense(const RmaOp& op) { return !op.req && op.otype->dense && op.ttype->dense; }
  // An accumulate the target may apply at the end of the epoch: one array of elements on every
  // side, in an epoch whose end the target takes part in; with a result (the old values come
  // back through the target's area) only under fence, where the origin waits for them.
  static bool stageable(Access a, const RmaOp& op) {
    const bool fetch = op.rtype != nullptr;
    return (a == Access::kFence || (a == Access::kPscw && !fetch)) && !op.req && op.ttype->dense &&
           (!fetch || op.rtype->dense) &&
           (op.op == dt::Op::kNoOp ? fetch : op.otype && op.otype->dense) &&
           dt::element_bytes(op.ttype->repr, op.ttype->elem_size) == op.ttype->elem_size;
  }
};

TargetPath* cma_path() {
  static CmaPath p;
  return &p;
}

}  // namespace osprey::rma
