#include "transport/am/credits.h"

#include <algorithm>

namespace osprey::am {
namespace {

constexpr uint32_t kMinCredits = 1;
constexpr uint32_t kLenderLimit = 64;  // most extra credits one peer gets per epoch
constexpr uint32_t kRevokeLimit = 32;  // most credits a borrower gives back per epoch

void decay(uint32_t& v) {
  v >>= 2;
}

}  // namespace

void Credits::init(uint32_t slots, uint32_t per_peer, uint32_t banked, int nranks, int me) {
  me_ = me;
  index_.assign(static_cast<std::size_t>(nranks > 0 ? nranks : 0), nullptr);
  const uint32_t peers = nranks > 1 ? static_cast<uint32_t>(nranks - 1) : 1;
  // Loans may not exceed the receive space: with many ranks each gets less (at least one).
  const uint32_t room = slots > banked ? slots - banked : 0;
  initial_ = std::max(kMinCredits, std::min(per_peer, room / peers));
  const uint64_t loaned = static_cast<uint64_t>(initial_) * peers;
  banked_ = loaned < slots ? static_cast<uint32_t>(slots - loaned) : 0;
  banked_target_ = banked_;
}

Peer& Credits::first_contact(int rank) {
  Peer*& p = index_[static_cast<std::size_t>(rank)];
  p = &peers_.emplace_back();
  p->send_credits = initial_;
  p->loan = initial_;
  ranks_.push_back(rank);
  return *p;
}

bool Credits::can_send(int rank) {
  Peer& p = peer(rank);
  return p.send_inuse < p.send_credits;
}

void Credits::spend(int rank) {
  Peer& p = peer(rank);
  ++p.send_inuse;
  p.send_max = std::max(p.send_max, p.send_inuse);
}

void Credits::returned(int rank, uint32_t n) {
  Peer& p = peer(rank);
  p.send_inuse = n > p.send_inuse ? 0 : p.send_inuse - n;
}

bool Credits::received(int rank) {
  Peer& p = peer(rank);
  return ++p.unreturned <= p.loan;
}

uint32_t Credits::processed(int rank) {
  Peer& p = peer(rank);
  ++p.owed;
  // Requests without replies (puts, accumulates) would starve the sender: return credits
  // explicitly once half the loan is owed.
  if (p.owed * 2 >= std::max<uint32_t>(p.loan, 2)) {
    const uint32_t n = p.owed;
    p.owed = 0;
    p.unreturned -= std::min(p.unreturned, n);
    return n;
  }
  return 0;
}

uint16_t Credits::take_owed(int rank) {
  Peer& p = peer(rank);
  const uint32_t n = std::min<uint32_t>(p.owed, 0xffff);
  p.owed -= n;
  p.unreturned -= std::min(p.unreturned, n);
  return static_cast<uint16_t>(n);
}

uint32_t Credits::grant(int rank, uint32_t n) {
  Peer& p = peer(rank);
  ++p.loan_requested;
  uint32_t extra = 0;
  if (n > 0 && p.loan_given < kLenderLimit) {
    extra = std::min({n, banked_, kLenderLimit - p.loan_given});
    banked_ -= extra;
    p.loan += extra;
    p.loan_given += extra;
  }
  return extra;
}

int Credits::pick_revoke_victim(int requester) {
  int best = -1;
  uint32_t best_loan = kMinCredits;
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    const int rank = ranks_[i];
    const Peer& p = peers_[i];
    if (rank == requester || rank == me_ || p.revoke_inflight || p.revoke_zero) continue;
    if (p.loan_requested > 0) continue;  // it wanted credits recently: leave it alone
    if (p.loan > best_loan) {
      best = rank;
      best_loan = p.loan;
    }
  }
  return best;
}

uint32_t Credits::give_back(int lender) {
  Peer& p = peer(lender);
  if (p.send_stalls > 0 || p.send_revoked >= kRevokeLimit) return 0;
  const uint32_t keep = std::max({kMinCredits, p.send_max, p.send_inuse});
  if (p.send_credits <= keep) return 0;
  const uint32_t n = std::min(p.send_credits - keep, kRevokeLimit - p.send_revoked);
  p.send_credits -= n;
  p.send_revoked += n;
  return n;
}

void Credits::bank_returned(int rank, uint32_t n) {
  Peer& p = peer(rank);
  p.revoke_inflight = false;
  if (n == 0) {
    p.revoke_zero = true;
    return;
  }
  p.loan = n > p.loan ? 0 : p.loan - n;
  banked_ += n;
}

void Credits::count_request(uint32_t epoch_len) {
  if (++received_in_epoch_ < epoch_len) return;
  received_in_epoch_ = 0;
  for (Peer& p : peers_) {
    decay(p.send_max);
    decay(p.send_stalls);
    decay(p.send_revoked);
    decay(p.loan_requested);
    decay(p.loan_given);
    p.revoke_zero = false;
  }
}

}  // namespace osprey::am
