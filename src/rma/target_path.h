// How operations reach one target rank: its window memory mapped here (DirectPath), a node
// peer's private memory by cross-memory attach (CmaPath), or active messages over the host
// MPI (MessagePath). The window chooses one path per target when it is created
// (Window::target hands it out in the TargetView); every operation and every per-target step
// of synchronization is a call on it, so adding a transport means adding one implementation.
//
// Calls come with the arguments checked and the target location resolved: `where` is the byte
// offset from the target's displacement 0, or the absolute address in a dynamic window.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "datatype/ops.h"
#include "datatype/type_info.h"
#include "util/status.h"

namespace osprey::rma {

class Window;
struct TargetView;
struct LockEntry;

// One RMA operation toward one target.
struct RmaOp {
  uint64_t where = 0;
  const void* origin = nullptr;  // put and accumulate data (absent for MPI_NO_OP)
  MPI_Count ocount = 0;
  const dt::TypeInfo* otype = nullptr;
  void* result = nullptr;  // get_accumulate, fetch_and_op, compare_and_swap
  MPI_Count rcount = 0;
  const dt::TypeInfo* rtype = nullptr;
  MPI_Count tcount = 0;
  const dt::TypeInfo* ttype = nullptr;
  dt::Op op = dt::Op::kReplace;
  const void* compare = nullptr;  // compare_and_swap
  // Request-based calls: a started generalized request the operation completes; a path that
  // takes it sets *req to MPI_REQUEST_NULL (else the operation completed at once).
  MPI_Request* req = nullptr;
};

class TargetPath {
 public:
  virtual ~TargetPath() = default;

  // Whether operations travel as messages: the target itself checks their range and applies
  // them, and its locks and PSCW posts are asked for by message (no local waits).
  virtual bool messages() const { return false; }

  virtual Status put(Window& w, const TargetView& t, const RmaOp& op) = 0;
  virtual Status get(Window& w, const TargetView& t, const RmaOp& op) = 0;
  // Accumulate, get_accumulate (op.result set) and fetch_and_op.
  virtual Status accumulate(Window& w, const TargetView& t, const RmaOp& op) = 0;
  virtual Status compare_and_swap(Window& w, const TargetView& t, const RmaOp& op) = 0;

  // Passive target: this origin's lock on t, taken lazily by its first operation (lock_all:
  // a shared lock), given back at unlock; flush completes what was issued to t (whose view
  // holds only its rank, node-local index and path: Window::path_view).
  virtual Status lock(Window& w, const TargetView& t, LockEntry& e) = 0;
  virtual Status lock_all_touch(Window& w, const TargetView& t) = 0;
  virtual Status unlock(Window& w, const TargetView& t, LockEntry& e) = 0;
  virtual Status flush(Window& w, const TargetView& t, bool local_only) = 0;

  // Generalized active target: an exposure epoch opened toward origin t; an access epoch
  // toward target t: start (true if an access must first see t's post), the first access
  // (waits for that post), complete.
  virtual void post_to(Window& w, const TargetView& t, int assert) = 0;
  virtual bool start_toward(Window& w, const TargetView& t) = 0;
  virtual void access_toward(Window& w, const TargetView& t) = 0;
  virtual void complete_toward(Window& w, const TargetView& t) = 0;
};

}  // namespace osprey::rma
