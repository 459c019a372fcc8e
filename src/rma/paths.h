// The paths a window may choose for a target (see rma/target_path.h). They keep no state of
// their own (the window and its segment do), so each is one object shared by every window.
#pragma once

#include "rma/target_path.h"

namespace osprey::rma {

TargetPath* direct_path();   // memory mapped here: loads, stores, CPU atomics
TargetPath* cma_path();      // a node peer's private memory, by cross-memory attach
TargetPath* message_path();  // active messages over the host MPI

// What both paths to node memory share: the target's lock words and PSCW words are in the
// node segment, and an operation is complete when it returns.
class NodePath : public TargetPath {
 public:
  Status lock(Window& w, const TargetView& t, LockEntry& e) override;
  Status lock_all_touch(Window& w, const TargetView& t) override;
  Status unlock(Window& w, const TargetView& t, LockEntry& e) override;
  // What unlock does, for a caller that has no view of the target (it needs none).
  static void unlock_words(Window& w, LockEntry& e);
  Status flush(Window& w, const TargetView& t, bool local_only) override;
  void post_to(Window& w, const TargetView& t, int assert) override;
  bool start_toward(Window& w, const TargetView& t) override;
  void access_toward(Window& w, const TargetView& t) override;
  void complete_toward(Window& w, const TargetView& t) override;
};

}  // namespace osprey::rma
