// Synchronization toward node-local targets: lock words and PSCW words in the node segment,
// no messages (the window's side of it is in passive.cc and pscw.cc). Operations on node
// memory complete when they return, so a flush only has to make them visible.
#include "rma/paths.h"
#include "rma/window.h"
#include "util/cpu.h"

namespace osprey::rma {

Status NodePath::lock(Window& w, const TargetView& t, LockEntry& e) {
  return w.passive_.take_words(t, e);
}

Status NodePath::lock_all_touch(Window& w, const TargetView& t) {
  return w.passive_.lock_all_words(t.local);
}

Status NodePath::unlock(Window& w, const TargetView&, LockEntry& e) {
  unlock_words(w, e);
  return kOk;
}

void NodePath::unlock_words(Window& w, LockEntry& e) {
  w.passive_.release_words(e);
  // An unlock on shared memory waits for nothing, so it serves the message path's requests
  // here: a process that only locks node memory would otherwise never serve remote lockers of
  // its own memory, and they would wait for good (the message path serves in its own wait).
  w.serve_requests();
}

Status NodePath::flush(Window&, const TargetView&, bool) {
  cpu::mem_sync();
  return kOk;
}

void NodePath::post_to(Window& w, const TargetView& t, int assert) {
  w.pscw_.post_words(t, assert);
}

bool NodePath::start_toward(Window&, const TargetView&) {
  return true;  // the first access waits for the target's post
}

void NodePath::access_toward(Window& w, const TargetView& t) {
  w.pscw_.await_post(t.local);
}

void NodePath::complete_toward(Window& w, const TargetView& t) {
  w.pscw_.complete_words(t);
}

}  // namespace osprey::rma
