#include "rma/served_ops.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "progress/backoff.h"
#include "progress/engine.h"
#include "progress/host_hook.h"
#include "progress/oversub.h"
#include "util/clock.h"
#include "util/config.h"

namespace osprey::rma {
namespace {

// A slot's states; its owner is the origin while free or done, the target while taken.
enum : uint32_t { kFree = 0, kPosted = 1, kTaken = 2, kDone = 3 };

// The windows with slots. Touched only where one thread at a time is inside MPI (served_ops.h).
std::vector<ServedOps*>& windows() {
  static std::vector<ServedOps*> w;
  return w;
}
std::atomic<bool> any{false};

}  // namespace

bool serve_all_served() {
  bool did = false;
  for (ServedOps* s : windows())
    did |= s->serve();
  return did;
}

bool any_served() {
  return any.load(std::memory_order_relaxed);
}

void ServedOps::init(const shm::SegmentView& view, uint32_t me, uint32_t nlocal, Apply apply,
                     void* ctx) {
  if (view.layout().serve == 0 || progress::oversubscribed() ||
      progress::concurrent_threads.load(std::memory_order_relaxed))
    return;
  view_ = &view;
  me_ = me;
  nlocal_ = nlocal;
  apply_ = apply;
  ctx_ = ctx;
  patience_.assign(nlocal, Patience{});
  windows().push_back(this);
  any.store(true, std::memory_order_relaxed);
  progress::set_mail_check(&serve_all_served);
  progress::register_host_hook();  // Open MPI: its own waits serve them too
  view.serve_bell(me).serving.store(1, std::memory_order_release);
}

void ServedOps::stop() {
  if (!view_) return;
  if (config().stats)
    std::fprintf(stderr,
                 "osprey stats [node rank %u]: served operations left at targets %llu, taken "
                 "back %llu, applied here %llu\n",
                 me_, static_cast<unsigned long long>(asked_),
                 static_cast<unsigned long long>(taken_back_),
                 static_cast<unsigned long long>(applied_));
  view_->serve_bell(me_).serving.store(0, std::memory_order_release);
  auto& w = windows();
  w.erase(std::remove(w.begin(), w.end(), this), w.end());
  any.store(!w.empty(), std::memory_order_relaxed);
  view_ = nullptr;
}

bool ServedOps::offer(uint32_t local) {
  if (!view_ || !view_->serve_bell(local).serving.load(std::memory_order_acquire)) return false;
  Patience& p = patience_[local];
  if (p.until_ns == 0) return true;
  if (monotonic_ns() < p.until_ns) return false;
  p.until_ns = 0;
  return true;
}

bool ServedOps::ask(uint32_t local, const ServedOp& op, Status* answer) {
  shm::ServeSlot& s = view_->serve_slot(me_, local);
  s.kind = op.kind;
  s.op = static_cast<uint8_t>(op.op);
  s.repr = static_cast<uint8_t>(op.repr);
  s.with_result = op.result != nullptr;
  s.elem_size = op.elem_size;
  s.bytes = op.bytes;
  s.address = op.address;
  if (op.kind != ServedOp::kGet && op.data) std::memcpy(s.data, op.data, op.bytes);
  if (op.kind == ServedOp::kCas) std::memcpy(s.compare, op.compare, op.elem_size);
  ++asked_;
  s.state.store(kPosted, std::memory_order_release);
  // A read-modify-write, so that the target's exchange that clears the bell reads every
  // origin's ring as part of one release sequence.
  view_->serve_bell(local).mail.exchange(1, std::memory_order_release);

  Patience& p = patience_[local];
  const uint64_t give_up = monotonic_ns() + kPatienceNs;
  progress::Backoff b;
  for (uint32_t round = 1;; ++round) {
    const uint32_t st = s.state.load(std::memory_order_acquire);
    if (st == kDone) break;
    if (st == kPosted && round % 16 == 0) {
      serve_all_served();  // the target may be waiting for this process, on any window
      uint32_t posted = kPosted;
      const uint64_t now = monotonic_ns();
      if (now > give_up &&
          s.state.compare_exchange_strong(posted, kFree, std::memory_order_acquire)) {
        p.penalty = std::min(p.penalty + 1, kMaxPenalty);
        p.until_ns = now + (kPatienceNs << p.penalty);
        ++taken_back_;
        return false;
      }
    }
    b.pause();
  }
  if (s.status)
    *answer = Err(s.status,
                  "osprey: the target has no memory attached there any more (a region detached "
                  "while in use)");
  else
    *answer = kOk;
  if (op.result && !s.status) std::memcpy(op.result, s.result, op.bytes);
  s.state.store(kFree, std::memory_order_relaxed);
  if (p.penalty) --p.penalty;
  return true;
}

bool ServedOps::serve() {
  if (!view_) return false;
  shm::ServeBell& bell = view_->serve_bell(me_);
  if (!bell.mail.load(std::memory_order_relaxed)) return false;
  bell.mail.exchange(0, std::memory_order_acquire);
  bool did = false;
  for (uint32_t o = 0; o < nlocal_; ++o) {
    shm::ServeSlot& s = view_->serve_slot(o, me_);
    uint32_t posted = kPosted;
    if (s.state.load(std::memory_order_relaxed) != kPosted ||
        !s.state.compare_exchange_strong(posted, kTaken, std::memory_order_acquire))
      continue;
    s.status = 0;
    apply_(ctx_, s);
    s.state.store(kDone, std::memory_order_release);
    ++applied_;
    did = true;
  }
  return did;
}

}  // namespace osprey::rma
