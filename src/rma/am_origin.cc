// The origin side of the message path (the MPICH "New RMA Design"): operations are queued per
// target in the operation table and issued in batches, so that the synchronization that ends
// them rides on the last one (RMA_DONE/UNLOCK piggybacking, GETs moved to the tail). A lock
// request rides on the first operation to a target (lazy lock: MPI_Win_lock sends nothing, and
// one short operation between lock and unlock is a single LOCK+OP+UNLOCK packet); the target
// holds that origin's later requests until it granted the lock, so no round trip is spent
// waiting for the grant.
#include <algorithm>
#include <cstring>
#include <new>

#include "datatype/byte_layout.h"
#include "datatype/runs.h"
#include "progress/backoff.h"
#include "rma/am_state.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "transport/am/layout.h"
#include "util/config.h"
#include "util/copy.h"

namespace osprey::rma {

using am::Kind;

namespace {

bool returns_data(Kind k) {
  return k == Kind::kGet || k == Kind::kGetAcc || k == Kind::kFop || k == Kind::kCas;
}

// Whether a reply of `bytes` data comes inline (else as a separate message).
bool reply_inline(uint64_t bytes) {
  return bytes <= config().eager_limit;
}

// Whether two batched gets fill overlapping origin bytes (a benchmark reading many times into
// one buffer): a receive datatype with overlapping entries is erroneous in MPI, so such a reply
// is copied out in order instead of scattered by the host.
bool gets_overlap(const std::vector<OpElem*>& gets) {
  std::vector<std::pair<const char*, const char*>> spans;
  spans.reserve(gets.size());
  for (const OpElem* g : gets) {
    const char* p = static_cast<const char*>(g->origin) + g->otype->true_lb;
    spans.emplace_back(p, p + g->bytes);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return true;
  return false;
}

}  // namespace

am::Endpoint& Window::endpoint() const {
  return *ci_->endpoint();
}

// The one way the origin side waits: without the window's lock, so that the progress engine
// (here or in another thread) can serve requests, this window's included.
void Window::am_pause(AmGuard& g, progress::Backoff& b) {
  g.unlock();
  if (progress::poll())
    b.reset();
  else
    b.pause_polled();
  g.lock();
}

std::vector<int> Window::am_target_ranks() const {
  std::vector<int> ranks;
  am_->table.for_each_target([&](TargetElem* t) { ranks.push_back(t->rank); });
  return ranks;
}

// Pools bound what one thread has in flight: it waits for its own operations to free
// elements. Threads of one process must not wait for each other's elements: one thread's
// operation may wait for a lock that a thread of another process holds while it waits for an
// element of its own process, held by an operation waiting for a lock this thread holds (a
// cycle no program wrote). Under MPI_THREAD_MULTIPLE an exhausted pool therefore grows after
// the cleanup that needs no wait, and shrinks back as elements return (op_table.cc).
OpElem* Window::am_new_op(AmGuard& g) {
  progress::Backoff b;
  for (;;) {
    if (OpElem* o = am_->table.new_op()) return o;
    // Both pools are empty: issue what waits and complete something (aggressive cleanup).
    for (int r : am_target_ranks())
      if (TargetElem* t = am_->table.find(r)) am_issue(g, t, 0);
    am_reap_all();
    if (OpElem* o = am_->table.new_op(threads_)) return o;
    am_pause(g, b);
  }
}

TargetElem* Window::am_target_elem(AmGuard& g, int rank) {
  if (TargetElem* t = am_->table.get(rank)) return t;  // before any wait's state is set up
  progress::Backoff b;
  for (;;) {
    if (TargetElem* t = am_->table.get(rank)) return t;
    // Out of target elements: free one that is idle, else complete one (FLUSH) and free it.
    // Under lock_all the per-target lock state lives in lockall_locked, so switch to the
    // window protocol first: every rank gets locked and the elements lose nothing.
    if (access_ == Access::kLockAll && !passive_.lockall_nocheck() &&
        !am_->lockall_window_protocol && !am_->unlocking_all) {
      am_lockall_window_protocol(g);
      continue;
    }
    TargetElem* idle = nullptr;
    TargetElem* victim = nullptr;
    am_->table.for_each_target([&](TargetElem* t) {
      if (t->busy) return;
      if (!idle && t->live == 0 && t->pending == 0 && !t->unacked) idle = t;
      if (!victim) victim = t;
    });
    if (idle) {
      am_->table.remove(idle);
    } else if (threads_) {
      return am_->table.get(rank, true);  // see am_new_op
    } else if (victim) {
      ++victim->busy;
      am_issue(g, victim, needs_ack(victim) ? am::kFlush : 0);
      am_wait_elem(g, victim);
      --victim->busy;
      am_release_elem(victim);
    } else {
      am_pause(g, b);  // every element is in use by another thread's wait
    }
  }
}

void Window::am_release_elem(TargetElem* te) {
  if (te->busy == 0 && te->live == 0 && te->pending == 0) am_->table.remove(te);
}

uint16_t Window::am_lock_needed(int rank) const {
  switch (access_) {
    case Access::kLock: {
      const LockEntry* e = passive_.find(rank);
      if (!e || e->nocheck || e->am_sent || e->held.load(std::memory_order_relaxed)) return 0;
      return e->type == MPI_LOCK_EXCLUSIVE ? am::kLockExclusive : am::kLockShared;
    }
    case Access::kLockAll: {
      if (passive_.lockall_nocheck() || am_->lockall_window_protocol) return 0;
      // Shared-memory windows took the node's lock words at lock_all already.
      const int local = ci_->local_index(rank);
      if (local >= 0 && passive_.lockall_holds(local)) return 0;
      return am_->lockall_locked.contains(rank) ? 0 : am::kLockShared;
    }
    default:
      return 0;
  }
}

void Window::am_lock_sent(int rank) {
  if (access_ == Access::kLock)
    passive_.find(rank)->am_sent = true;
  else
    am_->lockall_locked.insert(rank);
}

// A request outside fence and PSCW epochs (a lock epoch's) waits at its target until the
// target left the fence this rank left last. A rank leaves a fence once the operations aimed
// at it ran, not those it might access next: another origin's operations of the closed epoch
// may still be on their way to this target (am_sync.cc).
void Window::gate_on_last_fence(am::Request& r) const {
  r.flags |= am::kFenceEpoch;
  r.epoch = am_->fence_epoch;
}

void Window::am_send_bare(AmGuard& g, int rank, am::Request& r) {
  progress::Backoff b;
  while (!endpoint().try_request(rank, r, nullptr, 0))
    am_pause(g, b);
}

void Window::am_lockall_window_protocol(AmGuard& g) {
  // Lock every rank not locked yet with a bare request: it needs no reply (the target holds
  // this origin's later requests until it granted the lock) and no element of any pool.
  // Queued operations to targets not locked yet go out first, carrying their lock request.
  for (int r : am_target_ranks())
    if (TargetElem* t = am_->table.find(r)) am_issue(g, t, 0);
  for (int r = 0; r < nranks_; ++r) {
    TargetView t;
    if (!target(r, t).ok() || !t.path->messages()) continue;
    if (am_->lockall_locked.contains(r)) continue;
    am::Request req{};
    req.kind = Kind::kSync;
    req.flags = am::kLockShared;
    req.window = id_;
    gate_on_last_fence(req);
    am_send_bare(g, r, req);
    am_->lockall_locked.insert(r);
  }
  am_->lockall_window_protocol = true;
  am_->lockall_locked.clear();
}

OpElem* Window::am_sync_elem(AmGuard& g, TargetElem* te) {
  progress::Backoff b;
  while (te->sync_busy) {  // the previous standalone request of this target is in flight
    am_reap(te);
    if (te->sync_busy) am_pause(g, b);
  }
  OpElem* op = &te->sync_op;
  op->reset();
  op->embedded = true;
  te->sync_busy = true;
  return op;
}

std::pair<uint16_t, uint32_t> Window::am_epoch_gate(int rank) {
  if (access_ == Access::kFence) return {am::kFenceEpoch, am_->fence_epoch};
  if (access_ == Access::kPscw) return {am::kPscwEpoch, am_->pscw_starts[rank]};
  return {0, 0};
}

Status Window::am_enqueue(AmGuard& g, const TargetView& t, OpElem* op, bool issue_now) {
  const auto [gate, epoch] = am_epoch_gate(t.rank);
  op->flags |= gate;
  op->epoch = epoch;
  if (t.dynamic) op->flags |= am::kDynamic;
  TargetElem* te = am_target_elem(g, t.rank);
  am_->table.append(te, op);
  ++te->pending;
  if (issue_now || te->pending >= config().piggyback_threshold) am_issue(g, te, 0);
  return kOk;
}

// The header of op's request; its target layout, if the target does not hold it yet, into
// `layout` (a slot is chosen, and taken by am_send once the request is sure to go).
am::Request Window::am_header(const TargetElem* te, const OpElem* op, uint16_t flags,
                              std::vector<char>& layout) {
  am::Request r{};
  r.kind = op->kind;
  r.op = static_cast<uint8_t>(op->op);
  r.flags = flags;
  r.window = id_;
  r.where = op->where;
  r.bytes = op->bytes;
  r.tcount = op->tcount;
  r.epoch = op->epoch;
  layout.clear();
  if (!op->ttype) return r;
  r.repr = static_cast<uint8_t>(op->ttype->repr);
  r.elem_size = op->ttype->elem_size;
  r.textent = op->ttype->extent;
  r.tlb = op->ttype->true_lb;
  if (op->ttype->dense || !op->bytes) return r;
  // A target layout goes to each target once per window: a layout slot there holds it after.
  const AmState::LayoutSlots& slots = am_->layouts_sent[te->rank];
  uint32_t slot = 0;
  while (slot < am::kLayoutSlots && slots.ids[slot] != op->ttype->id)
    ++slot;
  if (slot < am::kLayoutSlots) {
    r.flags |= am::kTypeCached;
  } else {
    slot = slots.next;
    r.flags |= am::kTypeStore;
    am::encode_layout(*op->ttype, layout);
    r.layout_bytes = static_cast<uint32_t>(layout.size());
  }
  r.type_slot = static_cast<uint16_t>(slot);
  return r;
}

// Posts the receives of op's reply (header and inline data, or data that comes separately):
// before the request goes, so that the reply cannot arrive first.
void Window::am_expect_reply(const TargetElem* te, OpElem* op) {
  am::Endpoint& ep = endpoint();
  const uint64_t result_bytes = returns_data(op->kind) ? op->bytes : 0;
  const bool inline_reply = reply_inline(result_bytes);
  const uint64_t own = inline_reply ? result_bytes : 0;
  // The batched gets whose data comes in the reply; the others' comes alone (packet.h).
  std::vector<OpElem*>& in_reply = am_->scratch_gets;
  in_reply.clear();
  op->reply_gets = 0;
  for (const RecordGet& r : op->record_gets)  // first in the reply, copied out (am_take_reply)
    op->reply_gets += r.bytes;
  for (OpElem* g : op->batch_gets)
    if (!am::alone(op->request_flags, static_cast<uint32_t>(g->bytes))) {
      in_reply.push_back(g);
      op->reply_gets += static_cast<uint32_t>(g->bytes);
    }
  // Data that comes in remote pieces: the reply brings its first bytes.
  const std::size_t head =
      inline_reply ? 0 : reply_head_toward(te->rank, result_bytes, op->reply_gets);
  // Large batches of gets into dense buffers: the host scatters the reply, header, the gets'
  // data into their buffers, then this operation's own data.
  op->scattered =
      op->record_gets.empty() &&
      am::direct_reply(op->reply_gets, in_reply.size(), ci_->local_index(te->rank) >= 0) &&
      std::all_of(in_reply.begin(), in_reply.end(),
                  [](const OpElem* g) { return g->otype->dense; }) &&
      !gets_overlap(in_reply);
  if (op->scattered) {
    op->reply.resize(sizeof(am::Reply) + own);
    std::vector<am::Piece>& pieces = am_->scratch_pieces;
    pieces.clear();
    pieces.push_back({op->reply.data(), sizeof(am::Reply)});
    for (const OpElem* g : in_reply)
      pieces.push_back({static_cast<const char*>(g->origin) + g->otype->true_lb, g->bytes});
    pieces.push_back({op->reply.data() + sizeof(am::Reply), own});
    op->reply_in = am::Transfer::receive(ep.comm(), te->rank, op->tags, pieces.data(),
                                         static_cast<int>(pieces.size()));
  } else {
    op->reply.resize(sizeof(am::Reply) + op->reply_gets + own + head);
    op->reply_in =
        am::Transfer::receive(ep.comm(), te->rank, op->tags, op->reply.data(), op->reply.size());
  }
  // On the reply data tag in record order, ahead of this operation's own data.
  for (const OpElem* g : op->batch_gets)
    if (am::alone(op->request_flags, static_cast<uint32_t>(g->bytes)))
      op->alone_in.push_back(am::Transfer::receive(
          ep.comm(), te->rank, op->tags + 3, const_cast<void*>(g->origin), g->ocount, *g->otype));
  if (result_bytes && !inline_reply) {
    void* res = op->kind == Kind::kGet ? const_cast<void*>(op->origin) : op->result;
    const MPI_Count rc = op->kind == Kind::kGet ? op->ocount : op->rcount;
    const dt::TypeInfo& rt = op->kind == Kind::kGet ? *op->otype : *op->rtype;
    op->reply_data = am::Transfer::receive(ep.comm(), te->rank, op->tags + 3, res, rc, rt,
                                           remote_piece_toward(te->rank, result_bytes), head);
  }
}

// Sends op's request, built in `msg` behind room for its header: the batch (am_batch) is there
// already, the rest follows (inline layout, CAS compare operand, inline data). A credit was
// reserved for it.
void Window::am_send(TargetElem* te, OpElem* op, uint16_t extra_flags, am::Buffer&& msg,
                     uint32_t batch_reply) {
  am::Endpoint& ep = endpoint();
  std::vector<char>& layout = am_->scratch_layout;
  am::Request r = am_header(te, op, static_cast<uint16_t>(op->flags | extra_flags), layout);
  if (!(r.flags & (am::kFenceEpoch | am::kPscwEpoch))) gate_on_last_fence(r);
  if (r.flags & am::kFenceMark) {
    // The mark names its fence's epoch, also on a carrier of its own (no epoch) or on an
    // operation another thread queued in the epoch before, while this rank was in that fence:
    // it may belong to either epoch, and the later gate holds it no longer than that fence.
    r.epoch = am_->mark_epoch;
    r.fence_bits = am_->mark_bits;
  }
  if (op->completes) r.fence_bits = am::kCompletesEpoch;
  const std::size_t batch = msg.size() - sizeof(am::Request);
  op->batch_reply = batch_reply;
  op->expects_reply =
      returns_data(op->kind) || (r.flags & (am::kFlush | am::kUnlock)) || batch_reply;
  const bool carries_data = am::carries_payload(op->kind, op->op == dt::Op::kNoOp);
  const std::size_t cmp_bytes = op->kind == Kind::kCas ? op->ttype->elem_size : 0;
  // A layout takes at most half of what the batch left of the slot; what is left decides the
  // rest.
  const bool separate_layout = layout.size() > (ep.slot_bytes() - batch) / 2;
  const bool separate_data =
      carries_data && op->bytes > ep.inline_room((separate_layout ? 0 : layout.size()) + batch);
  if (batch) {
    r.flags |= am::kBatched;
    r.batch_bytes = static_cast<uint32_t>(batch);
    r.batch_reply = batch_reply;
  }
  const bool batch_payload = !op->batch_puts.empty();
  if (batch_payload) r.flags |= am::kBatchPayload;
  // Toward another node large batched gets reply alone (packet.h, kBatchedGetAlone).
  if (batch_reply && ci_->local_index(te->rank) < 0) r.flags |= am::kAloneGets;
  op->request_flags = r.flags;
  if (separate_layout) r.flags |= am::kSeparateLayout;
  if (separate_data) r.flags |= am::kSeparateData;
  if (r.flags & am::kTypeStore) {  // the request goes now: the target's slot will hold it
    AmState::LayoutSlots& slots = am_->layouts_sent[te->rank];
    slots.ids[r.type_slot] = op->ttype->id;
    slots.next = (r.type_slot + 1u) % am::kLayoutSlots;
  }
  if (op->expects_reply || separate_data || separate_layout || batch_payload) {
    op->tags = ep.new_tags();
    r.reply_tag = op->expects_reply ? op->tags : 0;
    r.data_tag = op->tags + 1;
  }
  // A short reply's receive is posted once the request and everything it sends apart are on
  // their way, off the round trip's path (its Irecv cost 40-70 ns of a 1 us put + flush, and
  // 0.4 us between a request and its payload over TCP); should the reply come first, the host
  // keeps it as an unexpected message, a copy of a few bytes. Longer replies are expected
  // before the request goes, so that their data lands in place.
  const bool late_reply =
      op->expects_reply &&
      batch_reply + (returns_data(op->kind) ? op->bytes : 0) <= am::kLateReplyMax;
  if (op->expects_reply && !late_reply) am_expect_reply(te, op);

  // Toward another node a separate payload goes in pieces, and the request carries its first
  // bytes, as many as the slot has room for: one message fewer, where each message costs a
  // network transport a progress round (over loopback TCP a 48-byte request and 4 KiB apart,
  // with an 8-byte answer, took 18.6 us, as one message 13.8).
  const std::size_t piece = separate_data ? remote_piece_toward(te->rank, op->bytes) : 0;
  const std::size_t head =
      piece ? ep.inline_room((separate_layout ? 0 : layout.size()) + batch) : 0;
  // The request: header, batched operations, inline layout, CAS compare operand, inline data.
  const std::size_t data =
      carries_data && !separate_data ? static_cast<std::size_t>(op->bytes) : head;
  std::size_t at = msg.size();
  msg.resize(at + (separate_layout ? 0 : layout.size()) + cmp_bytes + data);
  if (!separate_layout && !layout.empty()) {
    std::memcpy(msg.data() + at, layout.data(), layout.size());
    at += layout.size();
  }
  if (cmp_bytes) {
    std::memcpy(msg.data() + at, op->compare, cmp_bytes);
    at += cmp_bytes;
  }
  if (data && op->otype->dense)
    cpu::copy(msg.data() + at, static_cast<const char*>(op->origin) + op->otype->true_lb, data);
  else if (head)
    dt::pack_head(msg.data() + at, op->origin, op->ocount, *op->otype, head);
  else if (data)
    dt::pack(msg.data() + at, op->origin, op->ocount, *op->otype);
  std::memcpy(msg.data(), &r, sizeof r);
  ep.send_built(te->rank, std::move(msg));
  if (batch_payload) {
    // On the data tag ahead of the carrier's own payload: the target receives them in order.
    // Toward another node in pieces, as a separate payload goes (a PSCW epoch's one 8 KiB put
    // rides by reference in its complete: whole, it took the host's rendezvous).
    std::vector<am::Piece>& pieces = am_->scratch_pieces;
    pieces.clear();
    uint64_t total = 0;
    for (const OpElem* p : op->batch_puts) {
      pieces.push_back({static_cast<const char*>(p->origin) + p->otype->true_lb, p->bytes});
      total += p->bytes;
    }
    op->batch_payload =
        am::Transfer::send(ep.comm(), te->rank, op->tags + 1, pieces.data(),
                           static_cast<int>(pieces.size()), remote_piece_toward(te->rank, total));
  }
  if (separate_layout) {
    op->layout.assign(layout.begin(), layout.end());
    op->layout_send =
        am::Transfer::send(ep.comm(), te->rank, op->tags + 2, op->layout.data(), layout.size());
  }
  if (separate_data)
    op->payload = am::Transfer::send(ep.comm(), te->rank, op->tags + 1, op->origin, op->ocount,
                                     *op->otype, piece, head);
  if (late_reply) am_expect_reply(te, op);
  op->state = OpElem::State::kIssued;
  op->seq = ++te->sent;
  te->unacked = true;
  if (op->expects_reply) te->sync_sent = op->seq;
}

namespace {

// Writes a batch record's header in place at p and zeroes the padding after its `bytes` of data
// (the padding goes on the wire too: no stale heap bytes for memory checkers); returns where its
// data goes. In place, since built on the stack and copied, the header's stores stalled the
// copy's wide load. p is 8-byte aligned: records are whole multiples of 8 bytes, behind a
// request header or its room (a target element's records).
char* place_record(char* p, Kind kind, dt::Op op, const dt::TypeInfo& t, bool dynamic,
                   uint64_t where, uint32_t bytes, bool separate) {
  static_assert(sizeof(am::Request) % alignof(am::BatchedOp) == 0);
  auto* rec = new (p) am::BatchedOp{};
  rec->kind = kind;
  rec->op = static_cast<uint8_t>(op);
  rec->repr = static_cast<uint8_t>(t.repr);
  rec->dynamic = dynamic ? 1 : 0;
  rec->elem_size = t.elem_size;
  rec->where = where + static_cast<uint64_t>(t.true_lb);
  rec->bytes = bytes;
  rec->separate = separate ? 1 : 0;
  char* data = p + sizeof *rec;
  const uint64_t size = am::batched_record_bytes(kind, bytes, separate);
  if (size > sizeof *rec) std::memset(data + bytes, 0, size - sizeof *rec - bytes);
  return data;
}

// Whether op may ride in another request's batch by reference: a put of dense data too large
// to copy into the request (packet.h, BatchedOp::separate).
bool by_reference(const OpElem* op) {
  return op->kind == Kind::kPut && op->bytes > am::kBatchedOpMax &&
         op->bytes <= am::kBatchedPutMax && op->otype->dense && op->ttype->dense &&
         op->ttype->true_lb >= 0 && op->user_request == MPI_REQUEST_NULL;
}

// Whether op may ride in another request's batch (packet.h, BatchedOp).
bool batchable(const OpElem* op) {
  if (op->kind != Kind::kPut && op->kind != Kind::kAcc && op->kind != Kind::kGet) return false;
  if (by_reference(op)) return true;
  const uint32_t max = op->kind == Kind::kGet ? am::kBatchedGetMax : am::kBatchedOpMax;
  return op->bytes && op->bytes <= max && op->ttype->dense && op->ttype->true_lb >= 0 &&
         op->user_request == MPI_REQUEST_NULL;
}

// Operations share a request only if the target would gate them alike.
bool same_gate(const OpElem* a, const OpElem* b) {
  constexpr uint16_t kGates = am::kFenceEpoch | am::kPscwEpoch;
  return (a->flags & kGates) == (b->flags & kGates) && a->epoch == b->epoch;
}

uint64_t record_bytes(const OpElem* o) {
  return am::batched_record_bytes(o->kind, static_cast<uint32_t>(o->bytes), by_reference(o));
}

// The one put by reference among the records from `first` up to the carrier `o`, if it is the
// only one, its data is within OSPREY_EAGER_LIMIT, the carrier is bare (a synchronization of
// its own: nothing else goes in the request) and the records fit in `room` with its data
// copied: such a put is copied into the request instead, one message where its payload made
// two (a PSCW epoch of one 2 KiB put, whose complete carries it, took 2.2-2.6 us against 1.0
// for one of 1 KiB).
const OpElem* lone_reference_copied(const OpElem* first, const OpElem* o, std::size_t room) {
  if ((o->kind != Kind::kSync && o->kind != Kind::kComplete) || o->ttype) return nullptr;
  const OpElem* put = nullptr;
  uint64_t bytes = 0;
  for (const OpElem* b = first; b != o; b = b->next) {
    if (by_reference(b)) {
      if (put) return nullptr;
      put = b;
    }
    bytes += record_bytes(b);
  }
  if (!put || put->bytes > config().eager_limit) return nullptr;
  const uint32_t n = static_cast<uint32_t>(put->bytes);
  bytes += am::batched_record_bytes(Kind::kPut, n, false) - record_bytes(put);
  return bytes <= room ? put : nullptr;
}

}  // namespace

// The bytes of batch records a request may carry besides a carrier of its own: the slot but for
// the room of a short carrier's data.
std::size_t Window::batch_room() const {
  const std::size_t room = endpoint().inline_room(0);
  return room > 1024 ? room - 1024 : room / 2;
}

// Toward another node, a batch's gathered reply of up to this many remote pieces is not made
// (am_batch).
constexpr uint64_t kGatherPiecesMax = 4;

// Chooses the request that carries the pending operations from `first` on: the short ones
// before it ride in its batch (packet.h, BatchedOp), as many as the slot and the reply allow.
// Appends their records to `msg` (behind any taken from te->records), the gets among them to
// am_->scratch_gets; returns the carrier and adds to *reply (the bytes the records' gets
// return) the bytes the batched gets return.
OpElem* Window::am_batch(TargetElem* te, OpElem* first, am::Buffer& msg, uint32_t* reply) {
  const std::size_t room = endpoint().inline_room(0);
  const std::size_t cap = batch_room();
  const std::size_t taken = msg.size() - sizeof(am::Request);  // the records taken (am_issue)
  // Toward another node the gets' data gathered into the reply (not the ones that reply alone)
  // is capped at `gather_cap`.
  const bool remote = ci_->local_index(te->rank) < 0;
  OpElem* o;
  OpElem* prev;
  std::size_t bytes;
  auto grow = [&](uint64_t gather_cap) {
    o = first;
    prev = nullptr;
    bytes = taken;
    uint64_t gets = *reply, gathered = *reply, separate = 0;
    const uint16_t alone_flag = remote ? am::kAloneGets : 0;  // as am_send sets it
    auto gathers = [&](const OpElem* g) {
      return !am::alone(alone_flag, static_cast<uint32_t>(g->bytes));
    };
    while (o != te->tail && batchable(o) && same_gate(o, first) && bytes + record_bytes(o) <= cap &&
           (o->kind != Kind::kGet || (gets + o->bytes <= am::kBatchReplyMax &&
                                      (!gathers(o) || gathered + o->bytes <= gather_cap))) &&
           (!by_reference(o) || separate + o->bytes <= am::kBatchPayloadMax)) {
      bytes += record_bytes(o);
      if (o->kind == Kind::kGet) {
        gets += o->bytes;
        if (gathers(o)) gathered += o->bytes;
      }
      if (by_reference(o)) separate += o->bytes;
      prev = o;
      o = o->next;
    }
    return gathered;
  };
  // A reply that would gather more than one remote piece but little goes slowest: one get of
  // 8-28 KiB batched into a PSCW epoch's complete took 46-71 us over loopback TCP, on its own
  // (its data in remote pieces) 22-57. The batch then ends before the get that passes one
  // piece, and that get goes on its own. From 32 KiB the whole reply was as fast or faster
  // (32 KiB 35 us against 43-47, 40 KiB 37-49 against 54-60), so more stays gathered.
  const uint64_t gathered = grow(UINT64_MAX);
  const std::size_t piece = config().remote_piece;
  if (remote && piece && gathered > piece && gathered <= kGatherPiecesMax * piece) grow(piece);
  // o carries the batch; it must pass the same gate, and its own data should still fit in the
  // request. Else the last batched one carries (its data fits where its record was).
  if (prev) {
    const bool data = am::carries_payload(o->kind, o->op == dt::Op::kNoOp);
    const bool fits = !data || o->bytes > config().eager_limit || o->bytes <= room - bytes;
    if (!same_gate(o, first) || !fits) o = prev;
  }
  const OpElem* copied = lone_reference_copied(first, o, taken < room ? room - taken : 0);
  std::vector<OpElem*>& batched_gets = am_->scratch_gets;
  std::vector<OpElem*>& batched_puts = am_->scratch_puts;
  batched_gets.clear();
  batched_puts.clear();
  uint64_t reply_bytes = *reply;
  for (OpElem* b = first; b != o; b = b->next) {
    const std::size_t at = msg.size();
    const uint32_t n = static_cast<uint32_t>(b->bytes);
    b->by_reference = by_reference(b) && b != copied;
    msg.resize(at + am::batched_record_bytes(b->kind, n, b->by_reference));
    char* data = place_record(msg.data() + at, b->kind, b->op, *b->ttype, b->flags & am::kDynamic,
                              b->where, n, b->by_reference);
    if (b->kind == Kind::kGet) {
      batched_gets.push_back(b);
      reply_bytes += n;
    } else if (b->by_reference) {
      batched_puts.push_back(b);
    } else if (b->otype->dense) {
      std::memcpy(data, static_cast<const char*>(b->origin) + b->otype->true_lb, n);
    } else {
      dt::pack(data, b->origin, b->ocount, *b->otype);
    }
  }
  *reply = static_cast<uint32_t>(reply_bytes);
  o->batch_gets.assign(batched_gets.begin(), batched_gets.end());
  o->batch_puts.assign(batched_puts.begin(), batched_puts.end());
  return o;
}

void Window::am_issue(AmGuard& g, TargetElem* te, uint16_t sync_flags) {
  if (te->pending == 0 && !sync_flags) return;
  ++te->busy;  // kept while this thread may wait for credits
  // The pending ops are the tail of the list, in program order.
  auto first_pending = [&] {
    OpElem* o = te->head;
    while (o && o->state != OpElem::State::kPending)
      o = o->next;
    return o;
  };
  OpElem* first = first_pending();
  if (te->record_ops == 1 && !first) {
    am_promote_record(te);
    first = first_pending();
  }
  // A GET may move to the end so that its data reply is also the acknowledgement: only
  // plain gets, and only past puts (ordering of accumulates must hold).
  if (sync_flags && first && te->tail->kind != Kind::kGet) {
    OpElem* get = nullptr;
    bool only_puts_after = true;
    for (OpElem* o = first; o; o = o->next) {
      if (o->kind == Kind::kGet) {
        get = o;
        only_puts_after = true;
      } else if (get && o->kind != Kind::kPut) {
        only_puts_after = false;
      }
    }
    if (get && only_puts_after && get != te->tail) {
      am_->table.unlink(te, get);
      am_->table.append(te, get);
    }
  }
  // Send in order; the synchronization rides on the last one sent (or, if there is none, on a
  // request of its own). Without credits, wait (other threads may queue more meanwhile: they
  // go out too, in order). After a send the next pending op is the one after it; after a
  // pause it is searched again (another thread may have sent ours, and they may be reaped).
  progress::Backoff b;
  bool carried = !sync_flags;
  OpElem* o = first_pending();
  for (;;) {
    if (!o) {
      if (carried && !te->record_ops) break;
      // Records alone, with no synchronization to carry: a pool element, if one is free, so
      // that the next batch need not wait until this one's element is reaped.
      OpElem* s = carried ? am_->table.new_op() : nullptr;
      if (!s) s = am_sync_elem(g, te);
      s->kind = Kind::kSync;
      if (te->record_ops) {  // it carries the records: gated as they are
        s->flags = te->record_gate;
        s->epoch = te->record_epoch;
      }
      am_->table.append(te, s);
      ++te->pending;
      o = first_pending();
      continue;
    }
    // Records go ahead of every pending element; o carries them unless they must go alone.
    // Looked at here, after any wait: other threads may have posted records meanwhile.
    if (te->record_ops && !records_ride_with(te, o)) {
      am_issue_records(g, te);
      o = first_pending();
      continue;
    }
    // The credit first: the batch is then built once, straight into the message.
    if (!endpoint().reserve(te->rank)) {
      am_pause(g, b);
      o = first_pending();
      continue;
    }
    const uint16_t lock = am_lock_needed(te->rank);
    uint32_t batch_reply = static_cast<uint32_t>(te->record_reply);
    uint32_t taken;
    am::Buffer msg = take_request(te, &taken);
    OpElem* carrier = am_batch(te, o, msg, &batch_reply);
    hand_record_gets(te, carrier);
    const bool last = carrier == te->tail;
    // A fence mark goes once: operations other threads queue meanwhile may follow it.
    const uint16_t sync = carried ? sync_flags & ~am::kFenceMark : sync_flags;
    am_send(te, carrier, static_cast<uint16_t>(lock | (last ? sync : 0)), std::move(msg),
            batch_reply);
    if (lock) am_lock_sent(te->rank);
    // The batched ones went with the carrier. Puts and accumulates complete here once sent
    // (no reply of their own); gets when the carrier's reply brings their data.
    for (; o != carrier; o = o->next) {
      o->state = OpElem::State::kIssued;
      o->expects_reply = false;
      o->seq = carrier->seq;
      o->in_batch = o->kind == Kind::kGet || o->by_reference;
      --te->pending;
    }
    te->pending -= taken + 1;
    carried = carried || last;
    o = o->next;
  }
  --te->busy;
}

// A buffer to build a request in: room for its header, the rest of a slot reserved, since
// records are appended one by one and growing a Buffer copies it a byte at a time
// (NoInitAllocator's construct).
am::Buffer Window::request_buffer() const {
  am::Buffer msg = endpoint().buffer();
  msg.reserve(endpoint().slot_bytes());
  msg.resize(sizeof(am::Request));
  return msg;
}

// The buffer to build te's next request in: its records, if it has any (written behind room for
// the header, they are the request's batch as they stand: at 1 KiB a copy of each record's data
// fewer), else an empty request; *taken is how many records. Their gets stay until the carrier
// is known (hand_record_gets).
am::Buffer Window::take_request(TargetElem* te, uint32_t* taken) {
  am::Buffer msg = request_buffer();
  *taken = te->record_ops;
  if (!*taken) return msg;
  msg.swap(te->records);  // te keeps the fresh buffer for its next records
  // Unless that buffer is large (the endpoint's spare buffers include replies of megabytes):
  // target elements are many and live long.
  if (te->records.capacity() > 2 * endpoint().slot_bytes()) am::Buffer().swap(te->records);
  te->records.clear();
  te->record_ops = 0;
  return msg;
}

// The records' gets go with the request that carries them: their data comes in its reply.
void Window::hand_record_gets(TargetElem* te, OpElem* carrier) {
  if (!te->record_gets.empty()) {
    carrier->record_gets.swap(te->record_gets);  // te keeps the carrier's empty one
    te->record_gets.clear();
  }
  te->record_reply = 0;
}

// The target type of a record sent as a request of its own: bytes, or the accumulate's basic
// type; nullptr if its bytes are not whole elements of it.
const dt::TypeInfo* Window::record_type(const am::BatchedOp& rec) {
  const dt::TypeInfo* t = rec.kind != Kind::kAcc
                              ? dt::predefined(MPI_BYTE)
                              : dt::basic_type(static_cast<dt::Repr>(rec.repr), rec.elem_size);
  if (!t || t->size <= 0 || rec.bytes % static_cast<uint64_t>(t->size) != 0) return nullptr;
  return t;
}

// A lone record goes as an operation of its own: a request without a batch is shorter, and the
// host sends short messages the cheap way (an 8-byte put + flush sent as a batch of one, whose
// header cannot be compacted, cost the host's send about 570 instructions more), and the
// target runs it without the batch's walk.
void Window::am_promote_record(TargetElem* te) {
  am::BatchedOp rec;
  std::memcpy(&rec, te->record_data(), sizeof rec);
  const dt::TypeInfo* t = record_type(rec);
  if (!t) return;
  OpElem* o = am_->table.new_op();
  if (!o) return;
  o->kind = rec.kind;
  o->op = static_cast<dt::Op>(rec.op);
  o->flags = static_cast<uint16_t>(te->record_gate | (rec.dynamic ? am::kDynamic : 0));
  o->epoch = te->record_epoch;
  o->where = rec.where;
  o->bytes = rec.bytes;
  o->ocount = o->tcount = static_cast<MPI_Count>(rec.bytes / static_cast<uint64_t>(t->size));
  o->otype = o->ttype = t;  // predefined: nothing to retain
  if (rec.kind == Kind::kGet) {
    o->origin = te->record_gets.front().to;
    te->record_gets.clear();
    te->record_reply = 0;
  } else {
    const char* data = te->record_data() + sizeof rec;
    o->own_data.assign(data, data + rec.bytes);
    o->origin = o->own_data.data();
  }
  te->records.clear();
  te->record_ops = 0;  // still pending: as this operation now
  am_->table.append(te, o);
}

// Whether te's records may ride in o's request: the target must gate o alike, and unless o is
// a bare synchronization (no data, no layout, like the carriers made for records), they must
// leave it the room am_batch leaves.
bool Window::records_ride_with(const TargetElem* te, const OpElem* o) const {
  constexpr uint16_t kGates = am::kFenceEpoch | am::kPscwEpoch;
  if ((o->flags & kGates) != te->record_gate || o->epoch != te->record_epoch) return false;
  const bool bare = (o->kind == Kind::kSync || o->kind == Kind::kComplete) && !o->ttype;
  return bare || te->record_bytes() <= batch_room();
}

// Sends te's records in a request of their own, ahead of the pending elements, at the head of
// te's list (with the issued ones). Its carrier is a pool element, allocated beyond the pools if
// they are empty: te's sync element may be the pending element they must go ahead of (PSCW's
// complete request), so waiting for it would never end.
void Window::am_issue_records(AmGuard& g, TargetElem* te) {
  OpElem* s = am_->table.new_op(true);
  progress::Backoff b;
  while (!endpoint().reserve(te->rank))
    am_pause(g, b);
  s->kind = Kind::kSync;  // gated as the records are once the credit came (threads may post)
  s->flags = te->record_gate;
  s->epoch = te->record_epoch;
  const uint16_t lock = am_lock_needed(te->rank);
  const uint32_t reply = static_cast<uint32_t>(te->record_reply);
  uint32_t taken;
  am::Buffer msg = take_request(te, &taken);
  hand_record_gets(te, s);
  am_->table.prepend(te, s);
  am_send(te, s, lock, std::move(msg), reply);
  if (lock) am_lock_sent(te->rank);
  te->pending -= taken;
}

void Window::am_complete(OpElem* op) {
  if (op->user_request != MPI_REQUEST_NULL) PMPI_Grequest_complete(op->user_request);
  for (const dt::TypeInfo* t : {op->otype, op->rtype, op->ttype})
    if (t) dt::release(t);
  op->state = OpElem::State::kDone;
}

// The data of a reply: the batched gets' first (complete with the reply, which also tells
// their errors), then the operation's own.
void Window::am_take_reply(OpElem* op, const am::Reply& rep) {
  const char* data = op->reply.data() + sizeof(am::Reply);
  uint64_t left = rep.bytes;
  if (op->reply_gets && left >= op->reply_gets) {
    for (const RecordGet& r : op->record_gets) {
      std::memcpy(r.to, data, r.bytes);
      data += r.bytes;
    }
    for (OpElem* g : op->batch_gets) {
      if (op->scattered || am::alone(op->request_flags, static_cast<uint32_t>(g->bytes))) continue;
      dt::unpack(const_cast<void*>(g->origin), g->ocount, *g->otype, data);
      data += g->bytes;
    }
    left -= op->reply_gets;
  }
  // Gets whose data comes alone complete when it has come (am_test), if it comes at all.
  if (!(rep.flags & am::kAloneData))
    for (am::Transfer& x : op->alone_in)
      x.cancel();
  for (OpElem* g : op->batch_gets)
    if (!am::alone(op->request_flags, static_cast<uint32_t>(g->bytes))) am_complete(g);
  if (rep.status && !am_->error) am_->error = rep.status;
  if (!(rep.flags & am::kReplyData)) {
    op->reply_data.cancel();  // no data will come
  } else if (left) {
    // All of the data, or the first bytes of what comes in pieces (reply_head_toward).
    void* res = op->kind == Kind::kGet ? const_cast<void*>(op->origin) : op->result;
    const MPI_Count rc = op->kind == Kind::kGet ? op->ocount : op->rcount;
    const dt::TypeInfo& rt = op->kind == Kind::kGet ? *op->otype : *op->rtype;
    if (left < op->bytes)
      dt::unpack_head(res, rc, rt, data, left);
    else
      dt::unpack(res, rc, rt, data);
  }
}

bool Window::am_test(OpElem* op) {
  if (op->in_batch) return false;  // its carrier completes and frees it
  if (op->state != OpElem::State::kIssued) return op->state == OpElem::State::kDone;
  if (!op->payload.test() || !op->layout_send.test() || !op->batch_payload.test()) return false;
  if (op->expects_reply && !op->reply_seen) {
    if (!op->reply_in.test()) return false;
    op->reply_seen = true;
    const am::Reply* rep = reinterpret_cast<const am::Reply*>(op->reply.data());
    endpoint().on_reply(op->target->rank, *rep);
    am_take_reply(op, *rep);
  }
  if (!op->reply_data.test()) return false;
  for (am::Transfer& x : op->alone_in)
    if (!x.test()) return false;
  for (OpElem* g : op->batch_gets)
    if (g->state != OpElem::State::kDone) am_complete(g);
  // The target answers an origin's requests in order: a reply to the latest request means
  // everything sent to it is complete there.
  if (op->expects_reply && op->seq == op->target->sent) op->target->unacked = false;
  for (OpElem* p : op->batch_puts)
    am_complete(p);
  am_complete(op);
  return true;
}

void Window::am_reap(TargetElem* te) {
  for (OpElem* o = te->head; o;) {
    OpElem* next = o->next;  // the operations o completes come before it
    if (am_test(o)) {
      for (std::vector<OpElem*>* members : {&o->batch_gets, &o->batch_puts}) {
        for (OpElem* m : *members) {
          am_->table.unlink(te, m);
          am_->table.free_op(m);
        }
        members->clear();
      }
      am_->table.unlink(te, o);
      am_->table.free_op(o);
    }
    o = next;
  }
}

void Window::am_reap_all() {
  am_->table.for_each_target([&](TargetElem* t) { am_reap(t); });
}

// The reply of te's one operation in flight is tested in the same host call as the endpoint's
// request slot (am::watch): each test runs the host's whole progress, and a round that tested
// the slot and then the reply paid two passes, the reply seen a pass after it came. Only a short
// reply with no data moving besides: a round with fewer tests ends the wait's spins sooner, and
// over TCP 64 gets of 32 KiB in flight then ran at 176 MB/s against 421 (6 pairs), the wait
// yielding and sleeping while the host moved their data.
void Window::am_watch_reply(TargetElem* te) {
  const OpElem* o = te->head;
  if (!o || o->next || o->state != OpElem::State::kIssued || !o->expects_reply || o->reply_seen)
    return;
  if (o->reply.size() > sizeof(am::Reply) + am::kLateReplyMax || !o->payload.idle() ||
      !o->layout_send.idle() || !o->batch_payload.idle() || !o->reply_data.idle() ||
      !o->alone_in.empty())
    return;
  if (MPI_Request* r = const_cast<OpElem*>(o)->reply_in.pending()) am::watch(r);
}

void Window::am_wait_elem(AmGuard& g, TargetElem* te) {
  // Operations other threads queue meanwhile are not this wait's: waiting for them too could
  // last as long as those threads keep issuing, and nobody would issue the last of them.
  const uint64_t upto = te->sent;
  auto settled = [&] {
    if (te->live == 0) return true;
    if (!threads_) return false;  // a single thread queued nothing meanwhile: no need to look
    for (const OpElem* o = te->head; o; o = o->next)
      if (o->state == OpElem::State::kIssued && o->seq <= upto) return false;
    return true;
  };
  // The progress engine reaps completed operations (am_advance_origin); reap here only when
  // it did not just do so, so that each round tests each request once.
  progress::Backoff b;
  for (;;) {
    if (te->live && !am_->reaped) am_reap(te);
    am_->reaped = false;
    if (settled()) return;
    am_watch_reply(te);
    am_pause(g, b);
  }
}

Status Window::am_take_error() {
  const int e = am_->error;
  am_->error = 0;
  if (e) return Err(e, "osprey: a target on the message path reported an error");
  return kOk;
}

Status Window::am_flush(int rank, bool local_only) {
  AmGuard g(am_->mu);
  TargetElem* te = am_->table.find(rank);
  if (!te) {
    // Nothing to wait for, so no wait serves requests: a process that spins on a flush (on
    // its own memory, say) must still serve the others, though not on every call. The host's
    // progress was most of an empty flush (85 of 90 ns on shared memory, MPICH's own 17 ns
    // without any), and every 8th call still serves requests within a few hundred ns.
    if ((++am_->empty_flushes & 7) != 0) {
      const Status s = am_take_error();
      g.unlock();
      progress::pace_spinning_caller();
      return s;
    }
    g.unlock();
    progress::poll();
    progress::pace_spinning_caller();
    g.lock();
    return am_take_error();
  }
  if (local_only || !am_express_flush(g, te)) {
    ++te->busy;
    am_issue(g, te, !local_only && needs_ack(te) ? am::kFlush : 0);
    am_wait_elem(g, te);
    --te->busy;
  }
  if (!local_only) am_release_elem(te);
  const Status s = am_take_error();
  g.unlock();
  progress::pace_spinning_caller();
  return s;
}

Status Window::am_flush_all(bool local_only) {
  AmGuard g(am_->mu);
  // Issue everything first so that all targets work in parallel, then wait.
  const std::vector<int> ranks = am_target_ranks();
  for (int r : ranks)
    if (TargetElem* t = am_->table.find(r)) {
      ++t->busy;
      am_issue(g, t, !local_only && needs_ack(t) ? am::kFlush : 0);
      --t->busy;
    }
  for (int r : ranks)
    if (TargetElem* t = am_->table.find(r)) {
      ++t->busy;
      am_wait_elem(g, t);
      --t->busy;
      if (!local_only) am_release_elem(t);
    }
  return am_take_error();
}

Status Window::am_unlock(int rank, const LockEntry& e) {
  AmGuard g(am_->mu);
  // Under the lock: another thread may send this target's queued operations, with the lock
  // request, until this point.
  TargetElem* te = am_->table.find(rank);
  if (!te && !e.am_sent) return am_take_error();  // lazy lock never used: nothing to undo
  if (!te) te = am_target_elem(g, rank);
  ++te->busy;
  am_issue(g, te, am::kUnlock);
  am_wait_elem(g, te);
  --te->busy;
  am_release_elem(te);
  return am_take_error();
}

Status Window::am_unlock_all() {
  AmGuard g(am_->mu);
  // Every target that holds this origin's lock, or will once its queued operations carry the
  // lock request: decided before anything is issued, since issuing changes the lock state.
  std::vector<int> locked;
  if (am_->lockall_window_protocol) {
    for (int r = 0; r < nranks_; ++r) {
      TargetView t;
      if (target(r, t).ok() && t.path->messages()) locked.push_back(r);
    }
  } else {
    locked = am_->lockall_locked.members();
    am_->table.for_each_target([&](TargetElem* t) {
      if (t->pending && am_lock_needed(t->rank)) locked.push_back(t->rank);
    });
  }
  // The lock state is being dropped: running out of target elements now must not switch to
  // the window protocol (it would lock targets again).
  am_->unlocking_all = true;
  auto holds = [&](int r) { return std::find(locked.begin(), locked.end(), r) != locked.end(); };
  const std::vector<int> queued = am_target_ranks();
  for (int r : queued)
    if (TargetElem* t = am_->table.find(r)) {
      ++t->busy;
      am_issue(g, t, holds(r) ? am::kUnlock : (needs_ack(t) ? am::kFlush : 0));
      --t->busy;
    }
  for (int r : locked)
    if (std::find(queued.begin(), queued.end(), r) == queued.end()) {
      TargetElem* t = am_target_elem(g, r);
      ++t->busy;
      am_issue(g, t, am::kUnlock);
      --t->busy;
    }
  for (int r : am_target_ranks())
    if (TargetElem* t = am_->table.find(r)) {
      ++t->busy;
      am_wait_elem(g, t);
      --t->busy;
      am_release_elem(t);
    }
  am_->unlocking_all = false;
  am_->lockall_locked.clear();
  am_->lockall_window_protocol = false;
  return am_take_error();
}

// Whether an operation may be posted as a batch record (TargetElem::records): a put, get or
// accumulate small enough to batch, dense on both sides, completed by the flush that ends it.
bool Window::am_recordable(am::Kind kind, const RmaOp& op, uint64_t bytes) const {
  return (kind == Kind::kPut || kind == Kind::kGet ||
          (kind == Kind::kAcc && op.op != dt::Op::kNoOp)) &&
         !op.req && bytes && bytes <= am::kBatchedOpMax && op.otype->dense && op.ttype->dense &&
         op.ttype->true_lb >= 0;
}

// How many bytes the gets among one request's records may return. The reply is one message, and
// past the host's eager size (about 8 KiB here; OSPREY_REMOTE_PIECE, 7,936 bytes by default, is
// that size less room for headers) the host sends it by rendezvous, a handshake more before the
// flush can return: 64 gets of 160 bytes (10 KiB) ran at 5.0 Mops/s where 64 of 128 (8 KiB)
// ran at 8.0. Capped there, records go in requests of up to that much reply, the first ones
// while the program still posts: get rates of 256 bytes 1.5-1.7x, 512 1.5x, 1 KiB 1.26x, 128
// level (bench/compare.py --am, 4 pairs).
std::size_t Window::record_reply_cap() {
  const std::size_t piece = config().remote_piece;
  return piece ? std::min<std::size_t>(piece, am::kBatchReplyMax) : am::kBatchReplyMax;
}

// Posts a recordable operation as a batch record of its target element, its data copied now (a
// get's: where its data goes, TargetElem::record_gets).
// False if an operation element waits there: records go ahead of every pending element, so
// this one must queue behind them as an element of its own.
bool Window::am_record(AmGuard& g, const TargetView& t, am::Kind kind, const RmaOp& op,
                       uint32_t bytes) {
  TargetElem* te = am_target_elem(g, t.rank);
  const auto [gate, epoch] = am_epoch_gate(t.rank);
  // Records may fill a request: a carrier of its own, with data to fit beside them, takes them
  // only if they leave it the room am_batch leaves (am_issue).
  const std::size_t cap = endpoint().inline_room(0);
  const std::size_t size = am::batched_record_bytes(kind, bytes);
  // Issuing may wait for credits, and other threads may queue meanwhile: look again after.
  ++te->busy;
  for (;;) {
    if (te->pending != te->record_ops) {
      --te->busy;
      return false;
    }
    if (te->record_ops &&
        (gate != te->record_gate || epoch != te->record_epoch || te->record_bytes() + size > cap ||
         (kind == Kind::kGet && te->record_reply + bytes > record_reply_cap()))) {
      am_issue(g, te, 0);
      continue;
    }
    break;
  }
  --te->busy;
  if (te->records.capacity() < sizeof(am::Request) + cap)
    te->records.reserve(sizeof(am::Request) + cap);
  if (te->records.empty()) te->records.resize(sizeof(am::Request));  // take_request
  const std::size_t at = te->records.size();
  te->records.resize(at + size);
  char* data = place_record(te->records.data() + at, kind, op.op, *op.ttype, t.dynamic, op.where,
                            bytes, false);
  if (kind == Kind::kGet) {
    te->record_gets.push_back(
        {static_cast<char*>(const_cast<void*>(op.origin)) + op.otype->true_lb, bytes});
    te->record_reply += bytes;
  } else {
    cpu::copy(data, static_cast<const char*>(op.origin) + op.otype->true_lb, bytes);
  }
  te->record_gate = gate;
  te->record_epoch = epoch;
  ++te->record_ops;
  ++te->pending;
  if (te->pending >= config().piggyback_threshold) am_issue(g, te, 0);
  return true;
}

Status Window::am_post(const TargetView& t, am::Kind kind, const RmaOp& op) {
  AmGuard g(am_->mu);
  const uint64_t bytes = dt::data_bytes(op.tcount, *op.ttype);
  if (am_recordable(kind, op, bytes) && am_record(g, t, kind, op, static_cast<uint32_t>(bytes)))
    return kOk;
  OpElem* o = am_new_op(g);
  o->kind = kind;
  o->op = op.op;
  o->where = op.where;
  o->origin = op.origin;
  o->ocount = op.ocount;
  o->otype = op.otype;
  o->result = op.result;
  o->rcount = op.rcount;
  o->rtype = op.rtype;
  o->tcount = op.tcount;
  o->ttype = op.ttype;
  o->bytes = bytes;
  if (op.compare) std::memcpy(o->compare, op.compare, op.ttype->elem_size);
  // The user may free a datatype while the operation is in flight (MPI allows it).
  for (const dt::TypeInfo* x : {op.otype, op.rtype, op.ttype})
    if (x) dt::retain(x);
  bool now = false;
  if (op.req && *op.req != MPI_REQUEST_NULL) {
    o->user_request = *op.req;  // completed by am_test when the operation completes locally
    *op.req = MPI_REQUEST_NULL;
    now = true;
  }
  return am_enqueue(g, t, o, now);
}

bool Window::am_advance_origin() {
  if (am_->table.live_ops() == 0) return false;
  bool did = false;
  am_->table.for_each_target([&](TargetElem* t) {
    const uint32_t before = t->live;
    am_reap(t);
    did |= t->live != before;
  });
  am_->reaped = true;
  return did;
}

}  // namespace osprey::rma
