// Active-target synchronization on the message path.
//
// Fence: operations carry the fence epoch they belong to, and a target holds back requests of
// an epoch it has not entered, so a fence under MPI_MODE_NOPRECEDE sends nothing at all.
// Any other fence, up to OSPREY_FENCE_MARK_RANKS ranks (16): every rank sends every other a
// fence mark, on its last request there or on its own. A target runs an origin's requests in
// order, so once the mark ran, all that origin sent for the epoch is done here. A rank leaves
// when its own operations completed locally (sends done, data of gets arrived) and every other
// rank's mark ran here; only then does it take requests of the next epoch. So a put and a
// fence between two ranks cost one message each way, at once, where the barrier below waits
// for acknowledgements first and then sends its rounds.
// More ranks: the marks would be a message to every rank; the fence completes this rank's
// operations (flush) and meets everyone in a dissemination barrier of fence requests, which
// also combines the assertion flags.
#include "progress/backoff.h"
#include "rma/fence.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "util/config.h"

namespace osprey::rma {

Status Window::am_barrier(uint32_t flags, uint32_t* any_out, uint32_t* all_out) {
  uint32_t any = flags & 0xffff, all = flags & 0xffff;
  AmGuard g(am_->mu);
  const uint32_t e = am_->fence_epoch;
  for (uint32_t k = 0; (1u << k) < static_cast<uint32_t>(nranks_); ++k) {
    const int dest = static_cast<int>((static_cast<uint32_t>(rank_) + (1u << k)) % nranks_);
    am::Request r{};
    r.kind = am::Kind::kFence;
    r.window = id_;
    r.epoch = e;
    r.where = k;
    r.bytes = any | (all << 16);
    am_send_bare(g, dest, r);
    const uint64_t key = AmState::fence_key(e, k);
    progress::Backoff b;
    const AmState::FenceSignal* s;
    while (!(s = am_->fence_signals.find(key)))
      am_pause(g, b);
    any |= s->any;
    all &= s->all;
    am_->fence_signals.erase(key);  // one sender per round and barrier
  }
  *any_out = any;
  *all_out = all;
  return kOk;
}

Status Window::am_fence(int assert) {
  const uint32_t bits = fence_collective_bits(assert);
  if (assert & MPI_MODE_NOPRECEDE) {
    // Nothing to complete and nothing to wait for: the targets hold back this epoch's
    // requests until they enter it. Node peers reached directly still need the node barrier.
    {
      AmGuard g(am_->mu);
      ++am_->fence_epoch;
    }
    if (!force_am_ && ci_->node_size() > 1) node_barrier(static_cast<uint16_t>(bits));
    return kOk;
  }
  uint32_t any = 0, all = 0;
  Status done = kOk;
  if (static_cast<std::size_t>(nranks_) <= config().fence_mark_ranks) {
    done = am_fence_marks(bits, &any, &all);
  } else {
    // An error a target reported is returned once the fence is complete: leaving early would
    // strand the other ranks in the barrier.
    done = am_flush_all(false);
    {
      AmGuard g(am_->mu);
      ++am_->fence_epoch;  // from here on this rank takes requests of the next epoch
    }
    OSPREY_TRY(am_barrier(bits, &any, &all));
  }
  if (any != all)
    return Err(MPI_ERR_ASSERT,
               "osprey: ranks disagree on MPI_MODE_NOPRECEDE/NOSUCCEED in MPI_Win_fence");
  return done;
}

// A fence completes this rank's operations only locally (as MPI_Win_complete does): a target
// leaves once every origin's mark ran there, and marks run behind the operations they follow,
// so everything is in place before anyone can look. Waiting for acknowledgements as well made
// a put + fence a round trip where a mark is one way. Acknowledged still: requests to this
// rank itself (it sends itself no mark) and a dynamic window's, whose ranges only the target
// can check, so that a range error is returned by the fence that ends the epoch.
bool Window::fence_needs_ack(const TargetElem* te) const {
  return needs_ack(te) && (te->rank == rank_ || flavor_ == Flavor::kDynamic);
}

Status Window::am_fence_marks(uint32_t bits, uint32_t* any_out, uint32_t* all_out) {
  AmGuard g(am_->mu);
  const uint32_t e = am_->fence_epoch;
  am_->mark_epoch = e;
  am_->mark_bits = static_cast<uint8_t>(bits);
  // Issue everything first, each target's last request carrying the mark (and the request of
  // an acknowledgement where one is due), then mark the ranks this rank sent nothing to.
  std::vector<uint8_t>& marked = am_->scratch_marked;
  marked.assign(static_cast<std::size_t>(nranks_), 0);
  const std::vector<int> ranks = am_target_ranks();
  for (int r : ranks)
    if (TargetElem* t = am_->table.find(r)) {
      const uint16_t mark = r == rank_ ? 0 : am::kFenceMark;
      ++t->busy;
      am_issue(g, t, static_cast<uint16_t>((fence_needs_ack(t) ? am::kFlush : 0) | mark));
      --t->busy;
      marked[static_cast<std::size_t>(r)] = mark != 0 ? 1 : 0;
    }
  for (int r = 0; r < nranks_; ++r) {
    if (r == rank_ || marked[static_cast<std::size_t>(r)]) continue;
    am::Request m{};
    m.kind = am::Kind::kFence;
    m.flags = am::kFenceMark;
    m.window = id_;
    m.epoch = e;
    m.fence_bits = static_cast<uint8_t>(bits);
    am_send_bare(g, r, m);
  }
  for (int r : ranks)
    if (TargetElem* t = am_->table.find(r)) {
      ++t->busy;
      am_wait_elem(g, t);
      --t->busy;
      am_release_elem(t);
    }
  const Status flushed = am_take_error();
  uint32_t any = bits, all = bits;
  if (nranks_ > 1) {
    const uint64_t key = AmState::fence_key(e, AmState::kFenceMarkRound);
    const auto want = static_cast<uint32_t>(nranks_ - 1);
    progress::Backoff b;
    const AmState::FenceSignal* s = am_->fence_signals.find(key);
    while (!s || s->count < want) {
      am_pause(g, b);
      s = am_->fence_signals.find(key);
    }
    any |= s->any;
    all &= s->all;
    am_->fence_signals.erase(key);
  }
  ++am_->fence_epoch;  // every origin's operations of the epoch are done here
  g.unlock();
  // A node peer that reads this rank's memory directly must not leave before the operations
  // from other nodes are applied here: it saw only this rank's mark, sent on entry.
  if (!force_am_ && ci_->node_size() > 1) node_barrier(0);
  *any_out = any;
  *all_out = all;
  return flushed;
}

}  // namespace osprey::rma
