// The target's side of served operations (served_ops.h): what a node peer left in this rank's
// slot, applied to this process's own memory with the atomicity of every other update of it
// (accumulate.cc): lock stripes keyed by the address, as the peers' cross-memory attach takes
// them, and the acc gate for operations on many elements.
#include <cstring>

#include "rma/transfer.h"
#include "rma/window.h"

namespace osprey::rma {

void Window::apply_served(shm::ServeSlot& s) {
  const TargetView self = self_view();
  char* at = reinterpret_cast<char*>(s.address);
  const auto repr = static_cast<dt::Repr>(s.repr);
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
      const dt::TypeInfo* bt = dt::basic_type(repr, s.elem_size);
      const MPI_Count n = s.bytes / s.elem_size;
      RmaOp a;
      a.where = self.dynamic ? s.address : s.address - reinterpret_cast<uint64_t>(self.base);
      a.op = static_cast<dt::Op>(s.op);
      a.tcount = n;
      a.ttype = bt;
      if (a.op != dt::Op::kNoOp) {
        a.origin = s.data;
        a.ocount = n;
        a.otype = bt;
      }
      if (s.with_result) {
        a.result = s.result;
        a.rcount = n;
        a.rtype = bt;
      }
      apply_direct(self, a);
      return;
    }
  }
}

}  // namespace osprey::rma
