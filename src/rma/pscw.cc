#include "rma/pscw.h"

#include <algorithm>
#include <vector>

#include "progress/backoff.h"
#include "rma/shm_lock.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "util/cpu.h"

namespace osprey::rma {
namespace {

constexpr int kPostAsserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;

}  // namespace

Status PscwEpochs::translate_group(MPI_Group g, std::vector<int>& ranks) {
  if (g == MPI_GROUP_NULL) return Err(MPI_ERR_GROUP, "osprey: MPI_GROUP_NULL in a PSCW call");
  int n = 0;
  PMPI_Group_size(g, &n);
  // Kept between epochs: an epoch per iteration is the common use, and it allocated each time.
  if (identity_.size() < static_cast<size_t>(n)) {
    const size_t had = identity_.size();
    identity_.resize(static_cast<size_t>(n));
    for (size_t i = had; i < identity_.size(); ++i)
      identity_[i] = static_cast<int>(i);
  }
  ranks.assign(static_cast<size_t>(n), MPI_UNDEFINED);
  if (n) PMPI_Group_translate_ranks(g, n, identity_.data(), w_.group_, ranks.data());
  for (int r : ranks)
    if (r == MPI_UNDEFINED)
      return Err(MPI_ERR_GROUP, "osprey: PSCW group has a process outside the window's group");
  std::sort(ranks.begin(), ranks.end());
  return kOk;
}

Status PscwEpochs::post(MPI_Group group, int assert) {
  if (assert & ~kPostAsserts)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_post");
  if (exposure_)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_post while an exposure epoch is open");
  if (w_.access_ == Access::kFence && w_.fence_.has_ops())
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_post inside a fence epoch");
  // A window may not be exposed while a passive-target epoch holds its lock (MPI-3.1 11.5.3):
  // a held lock word is a conflict found for free (a lock not taken yet is not seen).
  if (shm_lock::in_use(w_.view_.lock(static_cast<uint32_t>(w_.ci_->node_rank()))))
    return Err(MPI_ERR_RMA_CONFLICT,
               "osprey: MPI_Win_post while a passive-target epoch holds this window's lock");
  std::vector<int>& origins = post_ranks_;
  OSPREY_TRY(translate_group(group, origins));
  if (w_.access_ == Access::kFence)
    w_.access_.store(Access::kNone, std::memory_order_release);  // leaving an empty fence epoch
  exposure_ = true;
  exposure_size_ = 0;
  exposure_am_ = 0;
  cpu::mem_sync();  // local loads and stores before the post are exposed to the origins
  for (int o : origins) {
    TargetView t;
    OSPREY_TRY(w_.target(o, t));
    t.path->post_to(w_, t, assert);
  }
  return kOk;
}

void PscwEpochs::post_words(const TargetView& t, int assert) {
  ++exposure_size_;
  if (assert & MPI_MODE_NOCHECK) return;  // the origin will not wait for this post
  const uint32_t me = static_cast<uint32_t>(w_.ci_->node_rank());
  std::atomic<uint64_t>* v = w_.view_.match(static_cast<uint32_t>(t.local));
  v[me / 64].fetch_or(uint64_t{1} << (me % 64), std::memory_order_release);
  progress::notify_after_rmw(w_.view_.pscw(static_cast<uint32_t>(t.local)).bell);
}

void PscwEpochs::count_post(int origin) {
  // Origins on the message path send their operations without waiting; this rank applies
  // those of its n-th exposure epoch toward them once it posted n times.
  Window::AmGuard g(w_.am_->mu);
  ++w_.am_->origins[origin].pscw_posts;
  ++exposure_am_;
}

Status PscwEpochs::start(MPI_Group group, int assert) {
  if (assert & ~MPI_MODE_NOCHECK)
    return Err(MPI_ERR_ASSERT, "osprey: invalid assertion for MPI_Win_start");
  OSPREY_TRY(w_.leave_fence_for("osprey: MPI_Win_start while another access epoch is open"));
  if (!fast_ready_ && w_.fast_count_)
    fast_ready_.reset(new std::atomic<uint8_t>[static_cast<size_t>(w_.fast_count_)]());
  OSPREY_TRY(translate_group(group, start_ranks_));
  if (start_seen_size_ < start_ranks_.size()) {
    start_seen_.reset(new std::atomic<uint8_t>[start_ranks_.size()]);
    start_seen_size_ = start_ranks_.size();
  }
  for (size_t i = 0; i < start_ranks_.size(); ++i) {
    TargetView t;
    OSPREY_TRY(w_.target(start_ranks_[i], t));
    const bool await = t.path->start_toward(w_, t) && !(assert& MPI_MODE_NOCHECK);
    start_seen_[i].store(await ? kNotSeen : kSeen, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < start_ranks_.size(); ++i)  // only once the epoch surely opens
    if (start_seen_[i].load(std::memory_order_relaxed) == kSeen) mark_fast(start_ranks_[i], 1);
  w_.access_.store(Access::kPscw, std::memory_order_release);
  return kOk;
}

void PscwEpochs::count_start(int target) {
  Window::AmGuard g(w_.am_->mu);
  ++w_.am_->pscw_starts[target];  // the epoch its operations will carry
}

void PscwEpochs::await_post(int local) {
  std::atomic<uint64_t>& word =
      w_.view_.match(static_cast<uint32_t>(w_.ci_->node_rank()))[local / 64];
  const uint64_t bit = uint64_t{1} << (local % 64);
  progress::wait_until([&] { return (word.load(std::memory_order_acquire) & bit) != 0; },
                       &w_.view_.pscw(static_cast<uint32_t>(w_.ci_->node_rank())).bell,
                       progress::Backoff::Waiting::kBusyUnlessThreads);
  word.fetch_and(~bit, std::memory_order_acq_rel);  // consumed: the next post sets it again
  cpu::mem_sync_beside_rmw();  // accesses after this see the target's exposed memory
}

Status PscwEpochs::access(const TargetView& t) {
  auto it = std::lower_bound(start_ranks_.begin(), start_ranks_.end(), t.rank);
  if (it == start_ranks_.end() || *it != t.rank)
    return Err(MPI_ERR_RMA_SYNC, "osprey: RMA call to a target outside the start group");
  see_post(start_seen_[static_cast<size_t>(it - start_ranks_.begin())], t);
  mark_fast(t.rank, 1);
  return kOk;
}

void PscwEpochs::mark_fast(int rank, uint8_t ready) {
  const unsigned local = static_cast<unsigned>(rank - w_.fast_first_);
  if (local < static_cast<unsigned>(w_.fast_count_))
    fast_ready_[local].store(ready, std::memory_order_release);
}

void PscwEpochs::see_post(std::atomic<uint8_t>& seen, const TargetView& t) {
  if (seen.load(std::memory_order_acquire) == kSeen) return;
  uint8_t expect = kNotSeen;
  if (seen.compare_exchange_strong(expect, kClaimed, std::memory_order_acq_rel)) {
    t.path->access_toward(w_, t);
    seen.store(kSeen, std::memory_order_release);
    return;
  }
  progress::wait_until([&] { return seen.load(std::memory_order_acquire) == kSeen; });
}

Status PscwEpochs::complete() {
  if (w_.access_ != Access::kPscw)
    return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_complete without MPI_Win_start");
  for (size_t i = 0; i < start_ranks_.size(); ++i) {
    TargetView t;
    OSPREY_TRY(w_.target(start_ranks_[i], t));
    see_post(start_seen_[i], t);
  }
  const Status queued = w_.cma_queue_.drain_all();
  cpu::mem_sync();  // this epoch's operations are visible before the targets learn of it
  for (int r : start_ranks_) {
    TargetView t;
    OSPREY_TRY(w_.target(r, t));
    t.path->complete_toward(w_, t);
  }
  // Complete only promises local completion: wait for the sends and for data of gets. The
  // epoch ends even if a target reported an error.
  const Status flushed = w_.uses_am_ ? w_.am_flush_all(true) : kOk;
  w_.stage_.epoch_ended();  // the targets apply what this epoch staged
  for (int r : start_ranks_)
    mark_fast(r, 0);
  start_ranks_.clear();
  w_.access_.store(Access::kNone, std::memory_order_release);
  return queued.ok() ? flushed : queued;
}

void PscwEpochs::complete_words(const TargetView& t) {
  shm::PscwWords& p = w_.view_.pscw(static_cast<uint32_t>(t.local));
  p.completes.fetch_add(1, std::memory_order_release);
  progress::notify_after_rmw(p.bell);
}

void PscwEpochs::send_complete(int target) {
  // A complete request after the operations: the target counts it once all of them ran. An
  // epoch's last operation not yet sent carries it instead (one message where an accumulate of
  // 2-8 KiB and its complete took two: 1.4-2.1 us an epoch against 1.0 for 1 KiB in records).
  Window::AmGuard g(w_.am_->mu);
  TargetElem* te = w_.am_target_elem(g, target);
  ++te->busy;
  if (OpElem* last = te->tail; last && last->state == OpElem::State::kPending &&
                               last->kind != am::Kind::kSync && last->kind != am::Kind::kComplete &&
                               (last->flags & am::kPscwEpoch) &&
                               last->epoch == w_.am_->pscw_starts[target]) {
    last->completes = true;
  } else {
    OpElem* op = w_.am_sync_elem(g, te);
    op->kind = am::Kind::kComplete;
    op->flags = am::kPscwEpoch;
    op->epoch = w_.am_->pscw_starts[target];
    w_.am_->table.append(te, op);
    ++te->pending;
  }
  w_.am_issue(g, te, 0);
  --te->busy;
}

bool PscwEpochs::exposure_done() {
  std::atomic<uint32_t>& c = w_.view_.pscw(static_cast<uint32_t>(w_.ci_->node_rank())).completes;
  if (c.load(std::memory_order_acquire) < exposure_size_) return false;
  if (exposure_am_) {
    Window::AmGuard g(w_.am_->mu);
    if (w_.am_->pscw_completes < exposure_am_) return false;
    w_.am_->pscw_completes -= exposure_am_;
  }
  c.fetch_sub(exposure_size_, std::memory_order_acq_rel);
  cpu::mem_sync_beside_rmw();  // local accesses after this see the origins' operations
  // And the accumulates they left here: their data is in the entries under PSCW, so applying
  // them cannot fail.
  (void)w_.stage_.apply_mine();
  exposure_ = false;
  return true;
}

Status PscwEpochs::wait() {
  if (!exposure_) return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_wait without MPI_Win_post");
  // exposure_done() consumes the counts, so the doorbell's check is a plain read; it is rung
  // only by node origins, so with origins on the message path the wait keeps polling.
  shm::PscwWords& mine = w_.view_.pscw(static_cast<uint32_t>(w_.ci_->node_rank()));
  if (exposure_done()) return kOk;
  // Spins while origins issue their epochs' operations, as node_barrier.cc says of fence.
  progress::Backoff b(progress::Backoff::Waiting::kBusyUnlessThreads);
  for (;;) {
    const bool did = progress::poll();
    if (exposure_done()) return kOk;
    if (did)
      b.reset();
    else if (exposure_am_)
      b.pause();
    else
      b.pause_on(mine.bell,
                 [&] { return mine.completes.load(std::memory_order_acquire) >= exposure_size_; });
  }
}

Status PscwEpochs::test(bool* done) {
  if (!exposure_) return Err(MPI_ERR_RMA_SYNC, "osprey: MPI_Win_test without MPI_Win_post");
  progress::poll();
  *done = exposure_done();
  if (!*done) progress::pace_spinning_caller();  // programs poll MPI_Win_test in a loop
  return kOk;
}

}  // namespace osprey::rma
