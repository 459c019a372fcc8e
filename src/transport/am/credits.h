// Credit flow control for active-message requests (after the GASNet Portals conduit): a sender
// needs one credit per request; credits are loans of the target's receive slots. Replies and
// explicit returns give them back; a stalled sender asks for more; a lender low on banked
// credits revokes from quiet peers; usage statistics decay by epoch. The receive space is
// fixed, whatever the number of ranks.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace osprey::am {

struct Peer {
  // As a borrower (sending requests to this peer).
  uint32_t send_credits = 0;  // loaned to us
  uint32_t send_inuse = 0;    // used and not yet returned
  uint32_t send_max = 0;      // most in use at once this epoch (decays)
  uint32_t send_stalls = 0;   // times we stalled (decays)
  uint32_t send_revoked = 0;  // credits given back on revocation (decays)
  bool request_inflight = false;
  // As a lender (receiving requests from this peer).
  uint32_t loan = 0;            // our slots loaned to the peer
  uint32_t owed = 0;            // consumed slots we processed and have not returned yet
  uint32_t unreturned = 0;      // requests received and not yet given back (<= loan, always)
  uint32_t loan_requested = 0;  // decays
  uint32_t loan_given = 0;      // decays
  bool revoke_inflight = false;
  bool revoke_zero = false;  // a revocation got nothing this epoch: do not ask again
};

class Credits {
 public:
  // `slots`: receive space; `per_peer`: initial loan; `banked`: discretionary reserve.
  void init(uint32_t slots, uint32_t per_peer, uint32_t banked, int nranks, int me);

  // Several lookups per request: the known peer inline, a first contact out of line.
  Peer& peer(int rank) {
    if (Peer* p = index_[static_cast<std::size_t>(rank)]) [[likely]]
      return *p;
    return first_contact(rank);
  }
  uint32_t initial_loan() const { return initial_; }

  // Borrower side.
  bool can_send(int rank);
  void spend(int rank);
  void returned(int rank, uint32_t n);

  // Lender side: a request from `rank` was processed; returns how many credits to return now
  // with an explicit message (0: let them ride on the next reply).
  uint32_t processed(int rank);
  // Credits to piggyback on a reply to `rank` (clears what is owed).
  uint16_t take_owed(int rank);
  // A stalled peer wants `n` more: how many the bank grants (plus what is owed).
  uint32_t grant(int rank, uint32_t n);
  // Peers to revoke from when the bank runs low.
  bool bank_low() const { return banked_ * 4 < banked_target_; }
  int pick_revoke_victim(int requester);
  // Borrower answering a revocation: how many to give back.
  uint32_t give_back(int lender);
  void bank_returned(int rank, uint32_t n);

  // A request from `rank` arrived: false if it broke the credit invariant (a bug).
  bool received(int rank);

  // Epoch accounting: every `epoch_len` requests received, statistics decay.
  void count_request(uint32_t epoch_len);
  uint32_t banked() const { return banked_; }

 private:
  Peer& first_contact(int rank);
  // Peers by rank, made at first use. Indexed, not hashed: several lookups per request, and a
  // hash map's modulo (a division) made them a tenth of the message path's own work per message.
  std::vector<Peer*> index_;
  std::deque<Peer> peers_;  // stable addresses
  std::vector<int> ranks_;  // of peers_, in order
  uint32_t initial_ = 1, banked_ = 0, banked_target_ = 0;
  uint32_t received_in_epoch_ = 0;
  int me_ = 0;
};

}  // namespace osprey::am
