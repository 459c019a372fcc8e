// The operation table of a window's message path (rma/op_table.h). The global pools are
// process-wide and sized once, so every test here gives back what it took from them.
#include "rma/op_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

namespace osprey::rma {
namespace {

constexpr std::size_t kGlobalOps = 6;
constexpr std::size_t kGlobalTargets = 3;

void ensure_global_pools() {
  static const bool done = [] {
    init_global_pools(kGlobalOps, kGlobalTargets);
    return true;
  }();
  (void)done;
}

// How many elements the global pools hold right now (a table without pools of its own drains
// them and gives everything back).
std::size_t global_ops_free() {
  OpTable probe;
  probe.init(1, 0, 0);
  std::vector<OpElem*> taken;
  while (OpElem* o = probe.new_op())
    taken.push_back(o);
  for (OpElem* o : taken)
    probe.free_op(o);
  return taken.size();
}

std::size_t global_targets_free() {
  OpTable probe;
  probe.init(1, 0, 0);
  std::vector<TargetElem*> taken;
  for (int r = 0;; ++r) {
    TargetElem* t = probe.get(r);
    if (!t) break;
    taken.push_back(t);
  }
  for (TargetElem* t : taken)
    probe.remove(t);
  return taken.size();
}

class OpTableTest : public testing::Test {
 protected:
  void SetUp() override {
    ensure_global_pools();
    ASSERT_EQ(global_ops_free(), kGlobalOps);
    ASSERT_EQ(global_targets_free(), kGlobalTargets);
  }
  // Nothing leaked from (or into) the shared pools.
  void TearDown() override {
    EXPECT_EQ(global_ops_free(), kGlobalOps);
    EXPECT_EQ(global_targets_free(), kGlobalTargets);
  }
};

std::vector<OpElem*> list_of(const TargetElem* t) {
  std::vector<OpElem*> v;
  for (OpElem* o = t->head; o; o = o->next)
    v.push_back(o);
  return v;
}

TEST_F(OpTableTest, GetCreatesOnceAndFindSeesIt) {
  OpTable tab;
  tab.init(4, 4, 4);
  EXPECT_TRUE(tab.empty());
  EXPECT_EQ(tab.find(3), nullptr);
  TargetElem* t = tab.get(3);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rank, 3);
  EXPECT_EQ(t->head, nullptr);
  EXPECT_EQ(t->live, 0u);
  EXPECT_EQ(tab.get(3), t);
  EXPECT_EQ(tab.find(3), t);
  EXPECT_EQ(tab.targets(), 1u);
  EXPECT_FALSE(tab.empty());
  tab.remove(t);
  EXPECT_EQ(tab.find(3), nullptr);
  EXPECT_TRUE(tab.empty());
}

TEST_F(OpTableTest, RanksSharingASlotStayDistinct) {
  OpTable tab;
  tab.init(4, 0, 8);
  // 1, 5, 9 and 13 all hash to slot 1.
  TargetElem* a = tab.get(1);
  TargetElem* b = tab.get(5);
  TargetElem* c = tab.get(9);
  TargetElem* d = tab.get(13);
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(tab.find(1), a);
  EXPECT_EQ(tab.find(5), b);
  EXPECT_EQ(tab.find(9), c);
  EXPECT_EQ(tab.find(13), d);
  // Removing from the middle of a slot's chain keeps the rest reachable.
  tab.remove(c);
  EXPECT_EQ(tab.find(9), nullptr);
  EXPECT_EQ(tab.find(1), a);
  EXPECT_EQ(tab.find(5), b);
  EXPECT_EQ(tab.find(13), d);
  tab.remove(d);
  tab.remove(a);
  EXPECT_EQ(tab.find(5), b);
  tab.remove(b);
  EXPECT_TRUE(tab.empty());
}

TEST_F(OpTableTest, ZeroSlotsStillWorks) {
  OpTable tab;
  tab.init(0, 0, 2);
  TargetElem* a = tab.get(7);
  TargetElem* b = tab.get(8);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(tab.find(7), a);
  EXPECT_EQ(tab.find(8), b);
  tab.remove(a);
  tab.remove(b);
}

TEST_F(OpTableTest, ReusedTargetElementStartsClean) {
  OpTable tab;
  tab.init(2, 1, 1);
  TargetElem* t = tab.get(4);
  ASSERT_NE(t, nullptr);
  t->pending = 3;
  t->unacked = true;
  t->sent = 10;
  t->sync_sent = 9;
  t->sync_busy = true;
  tab.remove(t);
  TargetElem* u = tab.get(6);
  ASSERT_EQ(u, t);  // the pool's only element comes back
  EXPECT_EQ(u->rank, 6);
  EXPECT_EQ(u->pending, 0u);
  EXPECT_EQ(u->live, 0u);
  EXPECT_FALSE(u->unacked);
  EXPECT_EQ(u->sent, 0u);
  EXPECT_EQ(u->sync_sent, 0u);
  EXPECT_FALSE(u->sync_busy);
  EXPECT_EQ(u->head, nullptr);
  EXPECT_EQ(u->tail, nullptr);
  tab.remove(u);
}

TEST_F(OpTableTest, TargetsComeFromTheWindowPoolThenTheGlobalOne) {
  OpTable tab;
  tab.init(8, 0, 2);
  std::vector<TargetElem*> got;
  for (int r = 0; r < 2 + static_cast<int>(kGlobalTargets); ++r) {
    TargetElem* t = tab.get(r);
    ASSERT_NE(t, nullptr) << "rank " << r;
    got.push_back(t);
  }
  EXPECT_EQ(global_targets_free(), 0u);
  EXPECT_EQ(tab.get(100), nullptr);  // both pools empty
  EXPECT_EQ(tab.find(100), nullptr);
  EXPECT_EQ(tab.targets(), got.size());
  // The window's pool refills first, then the global one.
  tab.remove(got[0]);
  EXPECT_EQ(global_targets_free(), 0u);
  tab.remove(got[1]);
  EXPECT_EQ(global_targets_free(), 0u);
  tab.remove(got[2]);
  EXPECT_EQ(global_targets_free(), 1u);
  for (std::size_t i = 3; i < got.size(); ++i)
    tab.remove(got[i]);
}

TEST_F(OpTableTest, OpsComeFromTheWindowPoolThenTheGlobalOne) {
  OpTable tab;
  tab.init(4, 3, 1);
  std::vector<OpElem*> got;
  for (std::size_t i = 0; i < 3 + kGlobalOps; ++i) {
    OpElem* o = tab.new_op();
    ASSERT_NE(o, nullptr) << "op " << i;
    got.push_back(o);
  }
  EXPECT_EQ(tab.new_op(), nullptr);
  // All distinct.
  std::vector<OpElem*> sorted = got;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  for (std::size_t i = 0; i < 3; ++i)
    tab.free_op(got[i]);
  EXPECT_EQ(global_ops_free(), 0u);  // went back to the window first
  for (std::size_t i = 3; i < got.size(); ++i)
    tab.free_op(got[i]);
}

TEST_F(OpTableTest, FreeBeyondBothCapacitiesDeletes) {
  // An element neither pool has room for is deleted, so the pools never grow (no leak check
  // here beyond the shared pools being exactly full afterwards).
  OpTable a, b;
  a.init(1, 1, 0);
  b.init(1, 1, 0);
  OpElem* from_b = b.new_op();
  ASSERT_NE(from_b, nullptr);
  a.free_op(from_b);  // a's pool is full already and the global one too: deleted
  EXPECT_EQ(global_ops_free(), kGlobalOps);
  // b's pool is empty now, so it draws from the global pool next.
  std::vector<OpElem*> got;
  while (OpElem* o = b.new_op())
    got.push_back(o);
  EXPECT_EQ(got.size(), kGlobalOps);
  // Through a, whose pool is full: they all go back to the global pool.
  for (OpElem* o : got)
    a.free_op(o);
}

TEST_F(OpTableTest, NewOpIsResetButKeepsBufferCapacity) {
  OpTable tab;
  tab.init(1, 1, 0);
  OpElem* o = tab.new_op();
  ASSERT_NE(o, nullptr);
  o->kind = am::Kind::kGet;
  o->op = dt::Op::kSum;
  o->epoch = 7;
  o->state = OpElem::State::kDone;
  o->seq = 99;
  o->compare[5] = 1;
  o->reply.assign(1000, 'x');
  o->own_data.assign(500, 'y');
  o->layout.assign(10, 'z');
  tab.free_op(o);
  OpElem* p = tab.new_op();
  ASSERT_EQ(p, o);
  EXPECT_EQ(p->kind, am::Kind::kPut);
  EXPECT_EQ(p->op, dt::Op::kNoOp);
  EXPECT_EQ(p->epoch, 0u);
  EXPECT_EQ(p->state, OpElem::State::kPending);
  EXPECT_EQ(p->seq, 0u);
  EXPECT_EQ(p->compare[5], 0);
  EXPECT_TRUE(p->reply.empty());
  EXPECT_TRUE(p->own_data.empty());
  EXPECT_TRUE(p->layout.empty());
  EXPECT_GE(p->reply.capacity(), 1000u);
  EXPECT_GE(p->own_data.capacity(), 500u);
  EXPECT_EQ(p->user_request, MPI_REQUEST_NULL);
  tab.free_op(p);
}

TEST_F(OpTableTest, AppendKeepsIssueOrderAndUnlinkAnyPosition) {
  OpTable tab;
  tab.init(4, 8, 2);
  TargetElem* t = tab.get(2);
  TargetElem* u = tab.get(3);
  ASSERT_TRUE(t && u);
  std::vector<OpElem*> ops;
  for (int i = 0; i < 5; ++i) {
    ops.push_back(tab.new_op());
    tab.append(t, ops.back());
    EXPECT_EQ(ops.back()->target, t);
  }
  OpElem* other = tab.new_op();
  tab.append(u, other);
  EXPECT_EQ(list_of(t), ops);
  EXPECT_EQ(t->tail, ops[4]);
  EXPECT_EQ(t->live, 5u);
  EXPECT_EQ(u->live, 1u);
  EXPECT_EQ(tab.live_ops(), 6u);

  tab.unlink(t, ops[0]);  // head
  EXPECT_EQ(list_of(t), (std::vector<OpElem*>{ops[1], ops[2], ops[3], ops[4]}));
  tab.unlink(t, ops[2]);  // middle
  EXPECT_EQ(list_of(t), (std::vector<OpElem*>{ops[1], ops[3], ops[4]}));
  tab.unlink(t, ops[4]);  // tail: the tail moves back
  EXPECT_EQ(list_of(t), (std::vector<OpElem*>{ops[1], ops[3]}));
  EXPECT_EQ(t->tail, ops[3]);
  EXPECT_EQ(t->live, 2u);
  EXPECT_EQ(tab.live_ops(), 3u);

  // Appending after the tail was unlinked must land after the new tail.
  tab.append(t, ops[4]);
  EXPECT_EQ(list_of(t), (std::vector<OpElem*>{ops[1], ops[3], ops[4]}));
  for (OpElem* o : {ops[1], ops[3], ops[4]})
    tab.unlink(t, o);
  EXPECT_EQ(t->head, nullptr);
  EXPECT_EQ(t->tail, nullptr);
  EXPECT_EQ(t->live, 0u);
  tab.unlink(u, other);
  EXPECT_EQ(tab.live_ops(), 0u);
  // A list emptied and refilled starts at the head again.
  tab.append(t, ops[0]);
  EXPECT_EQ(t->head, ops[0]);
  EXPECT_EQ(t->tail, ops[0]);
  tab.unlink(t, ops[0]);

  for (OpElem* o : ops)
    tab.free_op(o);
  tab.free_op(other);
  tab.remove(t);
  tab.remove(u);
}

TEST_F(OpTableTest, EmbeddedSyncOpIsNeverPooled) {
  OpTable tab;
  tab.init(1, 0, 1);
  TargetElem* t = tab.get(0);
  ASSERT_NE(t, nullptr);
  t->sync_op.embedded = true;
  t->sync_busy = true;
  tab.append(t, &t->sync_op);
  EXPECT_EQ(tab.live_ops(), 1u);
  tab.unlink(t, &t->sync_op);
  tab.free_op(&t->sync_op);
  EXPECT_FALSE(t->sync_busy);
  // Had it gone into a pool, new_op would now hand out the target's own member.
  EXPECT_EQ(global_ops_free(), kGlobalOps);
  tab.remove(t);
}

TEST_F(OpTableTest, ForEachTargetVisitsEveryTargetOnce) {
  OpTable tab;
  tab.init(3, 0, 10);
  const std::vector<int> ranks = {0, 1, 2, 3, 4, 6, 9, 12, 31};
  for (int r : ranks)
    ASSERT_NE(tab.get(r), nullptr);
  std::map<int, int> seen;
  tab.for_each_target([&](TargetElem* t) { ++seen[t->rank]; });
  EXPECT_EQ(seen.size(), ranks.size());
  for (int r : ranks)
    EXPECT_EQ(seen[r], 1) << "rank " << r;
  // Removing the visited target from inside the walk is allowed and still visits the rest.
  std::size_t visited = 0;
  tab.for_each_target([&](TargetElem* t) {
    ++visited;
    tab.remove(t);
  });
  EXPECT_EQ(visited, ranks.size());
  EXPECT_TRUE(tab.empty());
  bool any = false;
  tab.for_each_target([&](TargetElem*) { any = true; });
  EXPECT_FALSE(any);
}

TEST_F(OpTableTest, DestructorFreesListsLeftBehind) {
  // Ops still listed at destruction belong to the table (checked for leaks under ASan); the
  // embedded one is a member and must not be deleted on its own.
  OpTable tab;
  tab.init(2, 2, 1);
  TargetElem* t = tab.get(1);
  ASSERT_NE(t, nullptr);
  tab.append(t, tab.new_op());
  t->sync_op.embedded = true;
  tab.append(t, &t->sync_op);
  tab.append(t, tab.new_op());
  EXPECT_EQ(tab.live_ops(), 3u);
}

}  // namespace
}  // namespace osprey::rma
