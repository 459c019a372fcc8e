// The message path: operations are queued per target and sent as active messages over the
// host MPI (am_origin.cc); the target applies them (am_target.cc). Locks are asked for by the
// first request to a target, PSCW posts are counted, not sent (docs/NOTES.md).
#include "rma/paths.h"
#include "rma/window.h"

namespace osprey::rma {

class MessagePath final : public TargetPath {
 public:
  bool messages() const override { return true; }
  Status put(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.am_post(t, am::Kind::kPut, op);
  }
  Status get(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.am_post(t, am::Kind::kGet, op);
  }
  Status accumulate(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.am_post(t, op.result ? am::Kind::kGetAcc : am::Kind::kAcc, op);
  }
  Status compare_and_swap(Window& w, const TargetView& t, const RmaOp& op) override {
    return w.am_post(t, am::Kind::kCas, op);
  }
  // The lock request rides on the first request to the target (am_lock_needed).
  Status lock(Window&, const TargetView&, LockEntry&) override { return kOk; }
  Status lock_all_touch(Window&, const TargetView&) override { return kOk; }
  Status unlock(Window& w, const TargetView& t, LockEntry& e) override {
    const Status s = w.am_unlock(t.rank, e);
    w.passive_.release_words(e);  // a self lock also holds this node's lock words
    return s;
  }
  Status flush(Window& w, const TargetView& t, bool local_only) override {
    return w.am_flush(t.rank, local_only);
  }
  void post_to(Window& w, const TargetView& t, int) override { w.pscw_.count_post(t.rank); }
  bool start_toward(Window& w, const TargetView& t) override {
    w.pscw_.count_start(t.rank);
    return false;  // nothing to wait for here: the target holds the operations back
  }
  void access_toward(Window&, const TargetView&) override {}
  void complete_toward(Window& w, const TargetView& t) override { w.pscw_.send_complete(t.rank); }
};

TargetPath* message_path() {
  static MessagePath p;
  return &p;
}

}  // namespace osprey::rma
