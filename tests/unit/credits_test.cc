// Credit flow control of the message path (transport/am/credits.h): one Credits object plays
// borrower toward some peers and lender toward others, exactly as an endpoint does.
#include "transport/am/credits.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace osprey::am {
namespace {

TEST(Credits, FewRanksGetTheFullLoan) {
  Credits c;
  c.init(128, 8, 64, 4, 0);
  EXPECT_EQ(c.initial_loan(), 8u);
  // What is not loaned stays in the bank.
  EXPECT_EQ(c.banked(), 128u - 3u * 8u);
  EXPECT_EQ(c.peer(1).send_credits, 8u);
  EXPECT_EQ(c.peer(3).loan, 8u);
}

TEST(Credits, ManyRanksShareTheSpace) {
  Credits c;
  // 99 peers: the 64 slots left after the bank's reserve give less than one each.
  c.init(128, 8, 64, 100, 5);
  EXPECT_EQ(c.initial_loan(), 1u);
  EXPECT_LE(99u * c.initial_loan(), 128u);
  EXPECT_EQ(c.banked(), 128u - 99u);

  Credits d;
  // 20 peers: 64 / 20 = 3 each, below the per-peer setting.
  d.init(128, 8, 64, 21, 0);
  EXPECT_EQ(d.initial_loan(), 3u);
  EXPECT_LE(20u * d.initial_loan(), 128u);
  EXPECT_EQ(d.banked(), 128u - 60u);
}

TEST(Credits, LoanNeverExceedsTheSpaceWhileEveryPeerCanHaveOne) {
  for (uint32_t slots : {4u, 16u, 128u, 1000u})
    for (uint32_t banked : {0u, 2u, 64u, 2000u})
      for (int nranks : {1, 2, 3, 17, 129}) {
        Credits c;
        c.init(slots, 8, banked, nranks, 0);
        const uint64_t peers = nranks > 1 ? static_cast<uint64_t>(nranks - 1) : 1;
        SCOPED_TRACE(testing::Message()
                     << "slots " << slots << " banked " << banked << " nranks " << nranks);
        EXPECT_GE(c.initial_loan(), 1u);
        EXPECT_LE(c.initial_loan(), 8u);
        // With more peers than slots even one credit each exceeds the space: then the
        // minimum of one wins (every peer must be able to send at all).
        if (peers <= slots) {
          EXPECT_LE(peers * c.initial_loan(), slots);
        }
        // The bank holds exactly what is not loaned.
        const uint64_t loaned = peers * c.initial_loan();
        EXPECT_EQ(c.banked(), loaned < slots ? slots - loaned : 0u);
      }
}

TEST(Credits, SendingSpendsAndReturnsGiveBack) {
  Credits c;
  c.init(128, 4, 64, 3, 0);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(c.can_send(2));
    c.spend(2);
  }
  EXPECT_FALSE(c.can_send(2));
  EXPECT_TRUE(c.can_send(1));  // credits are per peer
  EXPECT_EQ(c.peer(2).send_inuse, 4u);
  EXPECT_EQ(c.peer(2).send_max, 4u);
  c.returned(2, 3);
  EXPECT_TRUE(c.can_send(2));
  EXPECT_EQ(c.peer(2).send_inuse, 1u);
  EXPECT_EQ(c.peer(2).send_max, 4u);  // the high-water mark stays
  // Returning more than is in use cannot go negative.
  c.returned(2, 10);
  EXPECT_EQ(c.peer(2).send_inuse, 0u);
}

TEST(Credits, PeerCacheSurvivesSwitchingPeers) {
  // peer() caches the last rank; switching back and forth must keep each peer's state.
  Credits c;
  c.init(128, 4, 0, 8, 0);
  c.spend(1);
  c.spend(2);
  c.spend(1);
  for (int r = 3; r < 8; ++r)
    c.peer(r);  // grows the map
  c.spend(1);
  EXPECT_EQ(c.peer(1).send_inuse, 3u);
  EXPECT_EQ(c.peer(2).send_inuse, 1u);
  EXPECT_EQ(c.peer(7).send_inuse, 0u);
}

TEST(Credits, ReceivedChecksTheLoan) {
  Credits c;
  c.init(128, 2, 64, 2, 0);
  EXPECT_TRUE(c.received(1));
  EXPECT_TRUE(c.received(1));
  EXPECT_FALSE(c.received(1));  // a third request without a returned credit is a bug
}

TEST(Credits, ProcessedReturnsOnceHalfTheLoanIsOwed) {
  Credits c;
  c.init(128, 8, 64, 2, 0);
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(c.received(1));
  EXPECT_EQ(c.processed(1), 0u);
  EXPECT_EQ(c.processed(1), 0u);
  EXPECT_EQ(c.processed(1), 0u);
  EXPECT_EQ(c.processed(1), 4u);  // 4 of 8 owed: returned explicitly
  EXPECT_EQ(c.peer(1).owed, 0u);
  EXPECT_EQ(c.peer(1).unreturned, 4u);
  // The returned credits may be used again without breaking the invariant.
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(c.received(1));
  EXPECT_FALSE(c.received(1));
}

TEST(Credits, ProcessedWithALoanOfOneReturnsAtOnce) {
  Credits c;
  c.init(4, 8, 2, 4, 0);
  ASSERT_EQ(c.initial_loan(), 1u);
  ASSERT_TRUE(c.received(2));
  EXPECT_EQ(c.processed(2), 1u);
  EXPECT_TRUE(c.received(2));
}

TEST(Credits, TakeOwedClearsWhatIsOwed) {
  Credits c;
  c.init(128, 8, 64, 2, 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.received(1));
    ASSERT_EQ(c.processed(1), 0u);
  }
  EXPECT_EQ(c.take_owed(1), 3u);
  EXPECT_EQ(c.take_owed(1), 0u);
  EXPECT_EQ(c.peer(1).unreturned, 0u);
  EXPECT_EQ(c.take_owed(0), 0u);
}

TEST(Credits, GrantComesFromTheBankWithAPerPeerLimit) {
  Credits c;
  c.init(256, 8, 64, 2, 0);  // one peer: 248 banked
  const uint32_t bank = c.banked();
  ASSERT_EQ(bank, 248u);
  EXPECT_EQ(c.grant(1, 10), 10u);
  EXPECT_EQ(c.banked(), bank - 10);
  EXPECT_EQ(c.peer(1).loan, 18u);
  EXPECT_EQ(c.peer(1).loan_requested, 1u);
  // At most 64 extra per epoch for one peer, whatever it asks for.
  EXPECT_EQ(c.grant(1, 100), 54u);
  EXPECT_EQ(c.grant(1, 1), 0u);
  EXPECT_EQ(c.peer(1).loan, 8u + 64u);
  EXPECT_EQ(c.banked(), bank - 64);
  EXPECT_EQ(c.grant(1, 0), 0u);
  // The grown loan is what received() checks against.
  for (uint32_t i = 0; i < 72; ++i)
    ASSERT_TRUE(c.received(1));
  EXPECT_FALSE(c.received(1));
}

TEST(Credits, GrantNeverExceedsTheBank) {
  Credits c;
  c.init(20, 8, 4, 3, 0);  // two peers of 8: 4 banked
  ASSERT_EQ(c.banked(), 4u);
  EXPECT_EQ(c.grant(1, 10), 4u);
  EXPECT_EQ(c.banked(), 0u);
  EXPECT_EQ(c.grant(2, 10), 0u);
  EXPECT_EQ(c.peer(2).loan, 8u);
}

TEST(Credits, GiveBackKeepsWhatIsInUse) {
  Credits c;
  c.init(128, 8, 64, 2, 0);
  c.peer(1).send_credits = 20;
  for (int i = 0; i < 5; ++i)
    c.spend(1);
  c.returned(1, 2);  // 3 in use, 5 at most this epoch
  EXPECT_EQ(c.give_back(1), 15u);
  EXPECT_EQ(c.peer(1).send_credits, 5u);
  EXPECT_EQ(c.peer(1).send_revoked, 15u);
  EXPECT_EQ(c.give_back(1), 0u);  // nothing above what it needs
}

TEST(Credits, GiveBackKeepsAtLeastOneAndRespectsItsLimit) {
  Credits c;
  c.init(128, 8, 64, 2, 0);
  c.peer(1).send_credits = 100;
  // Never used: all but one could go, but at most 32 per epoch.
  EXPECT_EQ(c.give_back(1), 32u);
  EXPECT_EQ(c.give_back(1), 0u);
  EXPECT_EQ(c.peer(1).send_credits, 68u);
}

TEST(Credits, GiveBackRefusesWhenStalled) {
  Credits c;
  c.init(128, 8, 64, 2, 0);
  c.peer(1).send_stalls = 1;
  EXPECT_EQ(c.give_back(1), 0u);
  EXPECT_EQ(c.peer(1).send_credits, 8u);
}

TEST(Credits, BankReturnedShrinksTheLoan) {
  Credits c;
  c.init(128, 8, 64, 3, 0);
  const uint32_t bank = c.banked();
  c.peer(1).revoke_inflight = true;
  c.bank_returned(1, 5);
  EXPECT_EQ(c.peer(1).loan, 3u);
  EXPECT_EQ(c.banked(), bank + 5);
  EXPECT_FALSE(c.peer(1).revoke_inflight);
  EXPECT_FALSE(c.peer(1).revoke_zero);
  c.peer(2).revoke_inflight = true;
  c.bank_returned(2, 0);
  EXPECT_TRUE(c.peer(2).revoke_zero);
  EXPECT_EQ(c.peer(2).loan, 8u);
  EXPECT_EQ(c.banked(), bank + 5);
}

TEST(Credits, RevocationRoundTripBetweenTwoEnds) {
  // A lender and a borrower exchanging the messages an endpoint would send: both ends must
  // agree on the loan afterwards.
  Credits lender, borrower;
  lender.init(128, 8, 64, 2, 0);
  borrower.init(128, 8, 64, 2, 1);
  const uint32_t extra = lender.grant(1, 12);
  borrower.peer(0).send_credits += extra;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(borrower.can_send(0));
    borrower.spend(0);
    ASSERT_TRUE(lender.received(1));
  }
  const uint32_t back = borrower.give_back(0);
  lender.bank_returned(1, back);
  EXPECT_EQ(lender.peer(1).loan, borrower.peer(0).send_credits);
  EXPECT_EQ(borrower.peer(0).send_credits, 2u);
}

TEST(Credits, PickRevokeVictimTakesTheBiggestQuietLoan) {
  Credits c;
  c.init(256, 4, 64, 6, 0);
  c.peer(1).loan = 10;
  c.peer(2).loan = 30;
  c.peer(3).loan = 50;
  c.peer(3).loan_requested = 1;  // recently asked for credits
  c.peer(4).loan = 40;
  c.peer(4).revoke_inflight = true;
  c.peer(5).loan = 1;
  EXPECT_EQ(c.pick_revoke_victim(2), 1);  // the requester itself is never picked
  EXPECT_EQ(c.pick_revoke_victim(1), 2);
  c.peer(2).revoke_zero = true;
  // Left: a loan of one, which can never shrink.
  EXPECT_EQ(c.pick_revoke_victim(1), -1);
}

TEST(Credits, BankLowAfterGrants) {
  Credits c;
  c.init(72, 8, 64, 2, 0);  // 64 banked
  EXPECT_FALSE(c.bank_low());
  c.grant(1, 64);
  EXPECT_TRUE(c.bank_low());
  c.bank_returned(1, 60);
  EXPECT_FALSE(c.bank_low());
}

TEST(Credits, CountRequestDecaysStatisticsEachEpoch) {
  Credits c;
  c.init(256, 8, 64, 3, 0);
  Peer& p = c.peer(1);
  p.send_max = 40;
  p.send_stalls = 8;
  p.send_revoked = 32;
  p.loan_requested = 4;
  p.loan_given = 64;
  p.revoke_zero = true;
  for (int i = 0; i < 9; ++i)
    c.count_request(10);
  EXPECT_EQ(p.send_max, 40u);  // not yet an epoch
  EXPECT_TRUE(p.revoke_zero);
  c.count_request(10);
  EXPECT_EQ(p.send_max, 10u);
  EXPECT_EQ(p.send_stalls, 2u);
  EXPECT_EQ(p.send_revoked, 8u);
  EXPECT_EQ(p.loan_requested, 1u);
  EXPECT_EQ(p.loan_given, 16u);
  EXPECT_FALSE(p.revoke_zero);
  // Loans and credits themselves never decay.
  EXPECT_EQ(p.loan, 8u);
  EXPECT_EQ(p.send_credits, 8u);
  for (int i = 0; i < 10; ++i)
    c.count_request(10);
  EXPECT_EQ(p.send_max, 2u);
}

TEST(Credits, DecayLetsAPeerBeGrantedAgain) {
  Credits c;
  c.init(512, 8, 64, 2, 0);
  EXPECT_EQ(c.grant(1, 64), 64u);
  EXPECT_EQ(c.grant(1, 8), 0u);
  for (int i = 0; i < 4; ++i)
    c.count_request(4);
  // loan_given 64 decayed to 16: 48 more allowed.
  EXPECT_EQ(c.grant(1, 100), 48u);
}

}  // namespace
}  // namespace osprey::am
