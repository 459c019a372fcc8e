// The target's side of served operations (served_ops.h): what a node peer left in this rank's
// slot, applied to this process's own memory with the atomicity of every other update of it
// (accumulate.cc): lock stripes keyed by the address, as the peers' cross-memory attach takes
// them, and the acc gate for operations on many elements.
#include <cstring>

#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {

void Window::apply_served(shm::ServeSlot& s) {
  TargetView self = self_view();
  const auto repr = static_cast<dt::Repr>(s.repr);
  const bool bytes = s.kind == ServedOp::kPut || s.kind == ServedOp::kGet;
  const dt::TypeInfo* bt =
      bytes ? dt::basic_type(dt::Repr::kU8, 1) : dt::basic_type(repr, s.elem_size);
  const uint32_t n = bytes ? 1 : s.elem_size;
  uint64_t where = self.dynamic ? s.address : s.address - reinterpret_cast<uint64_t>(self.base);
  if (self.dynamic) {
    // The origin checked the range against this rank's attach table when it made the call;
    // a region detached since is refused here, as cross-memory attach would fail on it.
    const Status st = check_where(self, &where, s.bytes / n, *bt);
    if (!st.ok()) {
      s.status = st.cls;
      return;
    }
  }
  char* at = direct_address(self, where);
  switch (s.kind) {
    case ServedOp::kPut:
      std::memcpy(at, s.data, s.bytes);
      return;
    case ServedOp::kGet:
      std::memcpy(s.result, at, s.bytes);
      return;
    case ServedOp::kCas:
      cas_mapped(self, repr, s.elem_size, at, s.data, s.compare, s.result);
      return;
    case ServedOp::kAcc: {
      const MPI_Count count = s.bytes / n;
      RmaOp a;
      a.where = where;
      a.op = static_cast<dt::Op>(s.op);
      a.tcount = count;
      a.ttype = bt;
      if (a.op != dt::Op::kNoOp) {
        a.origin = s.data;
        a.ocount = count;
        a.otype = bt;
      }
      if (s.with_result) {
        a.result = s.result;
        a.rcount = count;
        a.rtype = bt;
      }
      apply_direct(self, a);
      return;
    }
  }
}

}  // namespace osprey::rma
