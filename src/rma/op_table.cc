#include "rma/op_table.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

#include "progress/engine.h"

namespace osprey::rma {
namespace {

// The global pools, shared by every window: windows' own locks do not cover them, so they have
// their own (taken only when a window's pool is empty or full).
struct GlobalPools {
  std::mutex mu;
  std::vector<OpElem*> ops;
  std::vector<TargetElem*> targets;
  std::size_t op_cap = 0, target_cap = 0;
  bool ready = false;
};

GlobalPools& global() {
  static auto* g = new GlobalPools;  // lives until exit
  return *g;
}

template <class T>
T* take_global(std::vector<T*>& pool) {
  std::lock_guard<std::mutex> lock(global().mu);
  if (pool.empty()) return nullptr;
  T* e = pool.back();
  pool.pop_back();
  return e;
}

template <class T>
bool give_global(std::vector<T*>& pool, std::size_t cap, T* e) {
  std::lock_guard<std::mutex> lock(global().mu);
  if (pool.size() >= cap) return false;
  pool.push_back(e);
  return true;
}

}  // namespace

void init_global_pools(std::size_t ops, std::size_t targets) {
  GlobalPools& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.ready) return;
  g.ready = true;
  g.op_cap = ops;
  g.target_cap = targets;
  for (std::size_t i = 0; i < ops; ++i)
    g.ops.push_back(new OpElem);
  for (std::size_t i = 0; i < targets; ++i)
    g.targets.push_back(new TargetElem);
}

void OpTable::init(std::size_t slots, std::size_t op_pool, std::size_t target_pool) {
  // A power of two, so that a rank's slot is a mask, not a 64-bit division (most of the
  // lookup, which every operation and flush on the message path makes).
  const std::size_t n = std::bit_ceil(std::max<std::size_t>(slots, 1));
  slots_.assign(n, nullptr);
  mask_ = n - 1;
  op_cap_ = op_pool;
  target_cap_ = target_pool;
  for (std::size_t i = 0; i < op_pool; ++i)
    op_pool_.push_back(new OpElem);
  for (std::size_t i = 0; i < target_pool; ++i)
    target_pool_.push_back(new TargetElem);
}

OpTable::~OpTable() {
  for (TargetElem* s : slots_)
    for (TargetElem* t = s; t;) {
      TargetElem* next = t->next;
      for (OpElem* o = t->head; o;) {
        OpElem* n = o->next;
        if (!o->embedded) delete o;
        o = n;
      }
      delete t;
      t = next;
    }
  for (OpElem* o : op_pool_)
    delete o;
  for (TargetElem* t : target_pool_)
    delete t;
}

TargetElem* OpTable::find(int rank) const {
  for (TargetElem* t = slots_[static_cast<std::size_t>(rank) & mask_]; t; t = t->next)
    if (t->rank == rank) return t;
  return nullptr;
}

TargetElem* OpTable::get(int rank, bool overflow) {
  if (TargetElem* t = find(rank)) return t;
  TargetElem* t = nullptr;
  if (!target_pool_.empty()) {
    t = target_pool_.back();
    target_pool_.pop_back();
  } else if (TargetElem* g = take_global(global().targets)) {
    t = g;
  } else if (overflow) {
    t = new TargetElem;
  } else {
    return nullptr;
  }
  t->next = nullptr;
  t->rank = rank;
  t->head = t->tail = nullptr;
  t->pending = t->live = 0;
  t->records.clear();
  t->record_ops = 0;
  t->record_gets.clear();
  t->record_reply = 0;
  t->unacked = t->sync_busy = false;
  t->busy = 0;
  t->sent = t->sync_sent = 0;
  TargetElem*& head = slots_[static_cast<std::size_t>(rank) & mask_];
  t->next = head;
  head = t;
  t->all_prev = nullptr;
  t->all_next = all_;
  if (all_) all_->all_prev = t;
  all_ = t;
  ++ntargets_;
  return t;
}

void OpTable::remove(TargetElem* t) {
  TargetElem** p = &slots_[static_cast<std::size_t>(t->rank) & mask_];
  while (*p != t)
    p = &(*p)->next;
  *p = t->next;
  (t->all_prev ? t->all_prev->all_next : all_) = t->all_next;
  if (t->all_next) t->all_next->all_prev = t->all_prev;
  --ntargets_;
  if (target_pool_.size() < target_cap_)
    target_pool_.push_back(t);
  else if (!give_global(global().targets, global().target_cap, t))
    delete t;
}

OpElem* OpTable::new_op(bool overflow) {
  OpElem* o = nullptr;
  if (!op_pool_.empty()) {
    o = op_pool_.back();
    op_pool_.pop_back();
  } else if (OpElem* g = take_global(global().ops)) {
    o = g;
  } else if (overflow) {
    o = new OpElem;
  } else {
    return nullptr;
  }
  o->reset();
  return o;
}

// Field by field: assigning a fresh element (four transfers, four buffers) cost a put on the
// message path a fifth of its time, and buffers keep their capacity this way. A completed
// operation's transfers are idle.
void OpElem::reset() {
  next = nullptr;
  target = nullptr;
  kind = am::Kind::kPut;
  op = dt::Op::kNoOp;
  flags = 0;
  epoch = 0;
  origin = nullptr;
  ocount = 0;
  otype = nullptr;
  result = nullptr;
  rcount = 0;
  rtype = nullptr;
  std::memset(compare, 0, sizeof compare);
  where = 0;
  tcount = 0;
  ttype = nullptr;
  bytes = 0;
  state = State::kPending;
  expects_reply = reply_seen = false;
  tags = 0;
  seq = 0;
  for (am::Transfer* x : {&payload, &layout_send, &reply_in, &reply_data, &batch_payload})
    if (!x->idle()) *x = am::Transfer{};
  layout.clear();
  reply.clear();
  batch_gets.clear();
  reply_gets = 0;
  request_flags = 0;
  alone_in.clear();
  batch_puts.clear();
  record_gets.clear();
  batch_reply = 0;
  in_batch = scattered = by_reference = completes = false;
  own_data.clear();
  user_request = MPI_REQUEST_NULL;
  embedded = false;
}

void OpTable::free_op(OpElem* o) {
  if (o->embedded) {
    o->target->sync_busy = false;
    return;
  }
  if (op_pool_.size() < op_cap_)
    op_pool_.push_back(o);
  else if (!give_global(global().ops, global().op_cap, o))
    delete o;
}

void OpTable::append(TargetElem* t, OpElem* op) {
  op->target = t;
  op->next = nullptr;
  if (t->tail)
    t->tail->next = op;
  else
    t->head = op;
  t->tail = op;
  ++t->live;
  live_ops_.store(live_ops() + 1, std::memory_order_relaxed);
  if (shared_live_) progress::count(*shared_live_, 1);
}

void OpTable::prepend(TargetElem* t, OpElem* op) {
  op->target = t;
  op->next = t->head;
  t->head = op;
  if (!t->tail) t->tail = op;
  ++t->live;
  live_ops_.store(live_ops() + 1, std::memory_order_relaxed);
  if (shared_live_) progress::count(*shared_live_, 1);
}

void OpTable::unlink(TargetElem* t, OpElem* op) {
  OpElem** p = &t->head;
  OpElem* prev = nullptr;
  while (*p != op) {
    prev = *p;
    p = &(*p)->next;
  }
  *p = op->next;
  if (t->tail == op) t->tail = prev;
  --t->live;
  live_ops_.store(live_ops() - 1, std::memory_order_relaxed);
  if (shared_live_) progress::count(*shared_live_, -1);
}

}  // namespace osprey::rma
