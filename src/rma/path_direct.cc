// The direct path: the target's window memory is mapped here (the node segment of allocated
// windows, or this process's own memory). Puts and gets are copies; accumulates are CPU
// atomics where the element allows, else updates under lock stripes (accumulate.cc).
#include "datatype/runs.h"
#include "rma/paths.h"
#include "rma/transfer.h"
#include "rma/window.h"
#include "util/copy.h"

namespace osprey::rma {

class DirectPath final : public NodePath {
 public:
  Status put(Window&, const TargetView& t, const RmaOp& op) override {
    char* dst = direct_address(t, op.where);
    if (op.otype->dense && op.ttype->dense)
      cpu::copy(dst + op.ttype->true_lb, static_cast<const char*>(op.origin) + op.otype->true_lb,
                dt::data_bytes(op.ocount, *op.otype));
    else
      dt::copy(dst, op.tcount, *op.ttype, op.origin, op.ocount, *op.otype);
    return kOk;
  }
  Status get(Window&, const TargetView& t, const RmaOp& op) override {
    const char* src = direct_address(t, op.where);
    void* dst = const_cast<void*>(op.origin);
    if (op.otype->dense && op.ttype->dense)
      cpu::copy(static_cast<char*>(dst) + op.otype->true_lb, src + op.ttype->true_lb,
                dt::data_bytes(op.ocount, *op.otype));
    else
      dt::copy(dst, op.ocount, *op.otype, src, op.tcount, *op.ttype);
    return kOk;
  }
  Status accumulate(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.apply_direct(t, op);
  }
  Status compare_and_swap(Window& w, const TargetView& t, const RmaOp& op) override {
    const dt::TypeInfo& ti = *op.ttype;
    w.cas_mapped(t, ti.repr, ti.elem_size, direct_address(t, op.where) + ti.true_lb, op.origin,
                 op.compare, op.result);
    return kOk;
  }
};

TargetPath* direct_path() {
  static DirectPath p;
  return &p;
}

}  // namespace osprey::rma
