// The cross-memory attach path: a node peer's private window memory (MPI_Win_create, dynamic
// windows), reached with process_vm_readv/writev. It cannot do atomics: accumulates read,
// combine and write back under the lock stripes of their elements (accumulate.cc).
#include "rma/paths.h"
#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {

class CmaPath final : public NodePath {
 public:
  Status put(Window&, const TargetView& t, const RmaOp& op) override {
    return cma_move(true, t, op.where, op.tcount, *op.ttype, op.origin, op.ocount, *op.otype);
  }
  Status get(Window&, const TargetView& t, const RmaOp& op) override {
    return cma_move(false, t, op.where, op.tcount, *op.ttype, op.origin, op.ocount, *op.otype);
  }
  Status accumulate(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.apply_cma(t, op);
  }
  Status compare_and_swap(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.cas_cma(t, op);
  }
};

TargetPath* cma_path() {
  static CmaPath p;
  return &p;
}

}  // namespace osprey::rma
