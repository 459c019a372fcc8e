// The commonest flush on the message path: one short operation toward the target and nothing
// else in flight there. It is either a put, get or accumulate of up to 1 KiB posted as a batch
// record (am_record), or a compare_and_swap or short get_accumulate (fetch_and_op is one) in an
// operation element of its own. The general path (am_issue, am_send, am_wait_elem, am_reap)
// chooses a carrier, a batch and a reply form, and reaps the element when its reply came. Here
// the operation goes as the very request the general path would send (am_promote_record,
// am_header, am_send), with its reply received on the stack, and the flush waits for that reply
// alone: per 8-byte put + flush the origin's instructions outside its polling rounds went from
// 4,540 to 3,790 (callgrind; the host's send and receive, 750, among them).
#include <cstring>

#include "progress/backoff.h"
#include "rma/am_state.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "util/config.h"
#include "util/copy.h"

namespace osprey::rma {

using am::Kind;

bool Window::am_express_flush(AmGuard& g, TargetElem* te) {
  // One thread: no other may post to te or issue its operation while this one waits.
  if (threads_ || te->pending != 1 || te->busy) return false;
  if (te->record_ops == 1 ? te->head != nullptr : te->head != te->tail || !te->head) return false;
  if (am_lock_needed(te->rank)) return false;
  am::Endpoint& ep = endpoint();
  am::Buffer msg;
  ExpressReply reply;
  OpElem* elem = nullptr;
  if (te->record_ops == 1) {
    if (!express_record(te, msg, &reply)) return false;
  } else {
    elem = te->head;
    if (!express_element(te, elem, msg, &reply)) return false;
  }
  // Nothing is changed above: the general path takes over if no credit is free.
  int tags = 0;
  if (!ep.reserve(te->rank, &tags)) return false;
  am::Request r;
  std::memcpy(&r, msg.data(), sizeof r);
  if (!(r.flags & (am::kFenceEpoch | am::kPscwEpoch))) gate_on_last_fence(r);
  r.reply_tag = tags;
  r.data_tag = tags + 1;
  std::memcpy(msg.data(), &r, sizeof r);
  if (elem) {
    am_->table.unlink(te, elem);  // out of the progress engine's sight while it is in flight
  } else {
    te->records.clear();
    te->record_ops = 0;
    te->record_gets.clear();
    te->record_reply = 0;
  }
  te->pending = 0;
  // A short reply's receive is posted once the request went, a longer one's before, as am_send
  // posts them.
  alignas(am::Reply) char in_buf[sizeof(am::Reply) + am::kBatchedOpMax];
  const std::size_t in_bytes = sizeof(am::Reply) + reply.bytes;
  const bool late = reply.bytes <= am::kLateReplyMax;
  am::Transfer in;
  if (!late) in.post_receive(ep.comm(), te->rank, tags, in_buf, in_bytes);
  ep.send_built(te->rank, std::move(msg));
  const uint64_t seq = ++te->sent;
  te->unacked = true;
  te->sync_sent = seq;
  if (late) in.post_receive(ep.comm(), te->rank, tags, in_buf, in_bytes);
  ++te->busy;
  progress::Backoff b;
  while (!in.test()) {
    if (MPI_Request* p = in.pending()) am::watch(p);
    am_pause(g, b);
  }
  --te->busy;
  am::Reply rep;
  std::memcpy(&rep, in_buf, sizeof rep);
  ep.on_reply(te->rank, rep);
  if (rep.status && !am_->error) am_->error = rep.status;
  if ((rep.flags & am::kReplyData) && rep.bytes == reply.bytes && reply.bytes) {
    const char* data = in_buf + sizeof rep;
    if (reply.to)
      std::memcpy(reply.to, data, reply.bytes);
    else
      dt::unpack(reply.op->result, reply.op->rcount, *reply.op->rtype, data);
  }
  if (te->sent == seq) te->unacked = false;
  if (elem) {
    am_complete(elem);
    am_->table.free_op(elem);
  }
  return true;
}

// The request am_promote_record and am_send make of te's one record, into msg (its reply tags
// and fence gate still to come).
bool Window::express_record(TargetElem* te, am::Buffer& msg, ExpressReply* reply) {
  am::BatchedOp rec;
  std::memcpy(&rec, te->record_data(), sizeof rec);
  const bool get = rec.kind == Kind::kGet;
  // Data inline both ways, as am_send and the target's am_run would have it.
  if (rec.separate || rec.bytes > am::kBatchedOpMax ||
      (get ? rec.bytes > config().eager_limit : rec.bytes > endpoint().inline_room(0)))
    return false;
  const dt::TypeInfo* t = record_type(rec);  // as am_promote_record gives it
  if (!t) return false;
  am::Request r{};
  r.kind = rec.kind;
  r.op = rec.op;
  r.flags = static_cast<uint16_t>(te->record_gate | (rec.dynamic ? am::kDynamic : 0) | am::kFlush);
  r.window = id_;
  r.where = rec.where;
  r.bytes = rec.bytes;
  r.tcount = static_cast<MPI_Count>(rec.bytes / static_cast<uint64_t>(t->size));
  r.epoch = te->record_epoch;
  r.repr = static_cast<uint8_t>(t->repr);
  r.elem_size = t->elem_size;
  r.textent = t->extent;
  r.tlb = t->true_lb;
  const uint32_t data = get ? 0 : rec.bytes;
  msg = endpoint().buffer();
  msg.resize(sizeof r + data);
  std::memcpy(msg.data(), &r, sizeof r);
  if (data) cpu::copy(msg.data() + sizeof r, te->record_data() + sizeof rec, data);
  if (get) {
    reply->bytes = rec.bytes;
    reply->to = te->record_gets.front().to;
  }
  return true;
}

// The request am_send makes of te's one pending element: a short operation of dense types that
// returns its data inline, not request-based (into msg, as express_record).
bool Window::express_element(TargetElem* te, OpElem* op, am::Buffer& msg, ExpressReply* reply) {
  if (op->state != OpElem::State::kPending || op->user_request != MPI_REQUEST_NULL) return false;
  if (op->kind != Kind::kFop && op->kind != Kind::kCas && op->kind != Kind::kGetAcc) return false;
  if (!op->ttype->dense || op->bytes > am::kBatchedOpMax || op->bytes > config().eager_limit ||
      op->bytes > endpoint().inline_room(0))
    return false;
  const std::size_t data = am::carries_payload(op->kind, op->op == dt::Op::kNoOp) ? op->bytes : 0;
  if (data && !op->otype) return false;  // (a MPI_NO_OP fetch has no origin buffer)
  std::vector<char>& layout = am_->scratch_layout;
  am::Request r = am_header(te, op, static_cast<uint16_t>(op->flags | am::kFlush), layout);
  if (!layout.empty()) return false;
  const std::size_t cmp = op->kind == Kind::kCas ? op->ttype->elem_size : 0;
  msg = endpoint().buffer();
  msg.resize(sizeof r + cmp + data);
  std::memcpy(msg.data(), &r, sizeof r);
  if (cmp) std::memcpy(msg.data() + sizeof r, op->compare, cmp);
  char* to = msg.data() + sizeof r + cmp;
  if (data && op->otype->dense)
    std::memcpy(to, static_cast<const char*>(op->origin) + op->otype->true_lb, data);
  else if (data)
    dt::pack(to, op->origin, op->ocount, *op->otype);
  reply->bytes = op->bytes;
  reply->op = op;
  return true;
}

}  // namespace osprey::rma
