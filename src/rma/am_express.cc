// The commonest flush on the message path: one short put, get or accumulate posted to the target
// (a batch record, am_record) and nothing else in flight there. The general path turns the record
// into an operation element, chooses a carrier, batch and reply form, and reaps the element when
// its reply came: about 1,400 of the origin's 3,300 instructions per 8-byte put + flush,
// callgrind). Here the record goes as the very request the general path would send
// (am_promote_record, am_send), built straight from it, and the flush waits for that reply alone.
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
  // One thread: no other may post to te or issue its record while this one waits.
  if (threads_ || te->record_ops != 1 || te->pending != 1 || te->head || te->busy) return false;
  am::BatchedOp rec;
  std::memcpy(&rec, te->record_data(), sizeof rec);
  const bool get = rec.kind == Kind::kGet;
  // Data inline both ways, as am_send and the target's am_run would have it.
  if (rec.separate || rec.bytes > am::kBatchedOpMax ||
      (get ? rec.bytes > config().eager_limit : rec.bytes > endpoint().inline_room(0)))
    return false;
  // The target type am_promote_record gives the record: bytes, or the accumulate's basic type.
  const dt::TypeInfo* t = rec.kind != Kind::kAcc
                              ? dt::predefined(MPI_BYTE)
                              : dt::basic_type(static_cast<dt::Repr>(rec.repr), rec.elem_size);
  if (!t || t->size <= 0 || rec.bytes % static_cast<uint64_t>(t->size) != 0) return false;
  if (am_lock_needed(te->rank)) return false;
  am::Endpoint& ep = endpoint();
  if (!ep.reserve(te->rank)) return false;  // the general path waits for credits

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
  if (!(r.flags & (am::kFenceEpoch | am::kPscwEpoch))) gate_on_last_fence(r);
  const int tags = ep.new_tags();
  r.reply_tag = tags;
  r.data_tag = tags + 1;
  const uint32_t data = get ? 0 : rec.bytes;
  am::Buffer msg = ep.buffer();
  msg.resize(sizeof r + data);
  std::memcpy(msg.data(), &r, sizeof r);
  if (data) cpu::copy(msg.data() + sizeof r, te->record_data() + sizeof rec, data);
  void* const to = get ? te->record_gets.front().to : nullptr;
  te->records.clear();
  te->record_ops = 0;
  te->pending = 0;
  te->record_gets.clear();
  te->record_reply = 0;
  // A short reply's receive is posted once the request went, a longer one's before, as am_send
  // posts them.
  alignas(am::Reply) char reply[sizeof(am::Reply) + am::kBatchedOpMax];
  const std::size_t reply_bytes = sizeof(am::Reply) + (get ? rec.bytes : 0);
  const bool late = reply_bytes - sizeof(am::Reply) <= am::kLateReplyMax;
  am::Transfer in;
  if (!late) in = am::Transfer::receive(ep.comm(), te->rank, tags, reply, reply_bytes);
  ep.send_built(te->rank, std::move(msg));
  const uint64_t seq = ++te->sent;
  te->unacked = true;
  te->sync_sent = seq;
  if (late) in = am::Transfer::receive(ep.comm(), te->rank, tags, reply, reply_bytes);
  ++te->busy;
  progress::Backoff b;
  while (!in.test()) {
    if (MPI_Request* p = in.pending()) am::watch(p);
    am_pause(g, b);
  }
  --te->busy;
  am::Reply rep;
  std::memcpy(&rep, reply, sizeof rep);
  ep.on_reply(te->rank, rep);
  if (rep.status && !am_->error) am_->error = rep.status;
  if (get && (rep.flags & am::kReplyData) && rep.bytes == rec.bytes)
    std::memcpy(to, reply + sizeof rep, rec.bytes);
  if (te->sent == seq) te->unacked = false;
  return true;
}

}  // namespace osprey::rma
