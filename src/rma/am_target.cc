// The target side of the message path: requests from each origin are executed in arrival
// order, and one that cannot finish yet (its lock is not granted, its fence or PSCW epoch has
// not begun here, its separate payload has not landed) holds back that origin's later
// requests, which keeps accumulate ordering and makes every reply an acknowledgement of all
// that origin sent before. Operations are applied with the same atomicity rules as node-local
// origins use (CPU atomics on segment memory, lock stripes otherwise), so origins on both
// paths can update one location together.
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "datatype/apply.h"
#include "datatype/byte_layout.h"
#include "datatype/runs.h"
#include "rma/am_state.h"
#include "rma/paths.h"
#include "rma/shm_lock.h"
#include "rma/transfer.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "transport/am/layout.h"
#include "util/config.h"
#include "util/copy.h"

namespace osprey::rma {

using am::Kind;

namespace {

struct Body {
  const char* layout = nullptr;  // a target layout sent inline (kTypeStore)
  const unsigned char* compare = nullptr;
  const char* data = nullptr;  // inline payload
};

Body parse(const am::Request& r, const char* msg) {
  Body b;
  const char* p = msg + sizeof(am::Request) + ((r.flags & am::kBatched) ? r.batch_bytes : 0);
  if ((r.flags & am::kTypeStore) && !(r.flags & am::kSeparateLayout)) {
    b.layout = p;
    p += r.layout_bytes;
  }
  if (r.kind == Kind::kCas) {
    b.compare = reinterpret_cast<const unsigned char*>(p);
    p += r.elem_size;
  }
  b.data = p;
  return b;
}

// The category and operations of a target type a request describes: the origin checked the
// operation, these only keep it whole. Computed once: op_mask loops over every operation.
constexpr uint16_t kIntegerOps = dt::op_mask(dt::Category::kInteger);
constexpr uint16_t kNoOps = dt::op_mask(dt::Category::kNone);
void set_category(dt::TypeInfo& t) {
  const bool none = t.repr == dt::Repr::kNone;
  t.cat = none ? dt::Category::kNone : dt::Category::kInteger;
  t.ops = none ? kNoOps : kIntegerOps;
}

// Whether any two pieces share a byte (pieces without a place share none).
bool overlapping(const std::vector<am::Piece>& pieces) {
  std::vector<std::pair<const char*, const char*>> spans;
  spans.reserve(pieces.size());
  for (const am::Piece& x : pieces)
    if (x.p) spans.emplace_back(static_cast<const char*>(x.p), static_cast<const char*>(x.p) + x.n);
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return true;
  return false;
}

bool reply_inline(uint64_t bytes) {
  return bytes <= config().eager_limit;
}

bool returns_data(Kind k) {
  return k == Kind::kGet || k == Kind::kGetAcc || k == Kind::kFop || k == Kind::kCas;
}

// Toward another node, a get's scattered window data up to this size is packed before it is
// sent (am_run).
constexpr uint64_t kPackedGetMax = 64 << 20;

// Whether r ends the origin's epoch here (unlock, PSCW complete, a fence mark): window memory
// may change once it retired, so nothing may still be read from there by then.
bool ends_epoch(const am::Request& r) {
  return (r.flags & (am::kUnlock | am::kFenceMark)) || am::completes_pscw(r);
}

}  // namespace

TargetView Window::self_view() const {
  TargetView t;
  t.rank = rank_;
  t.local = ci_->node_rank();
  t.path = direct_path();
  t.dynamic = flavor_ == Flavor::kDynamic;
  t.cpu_atomics = flavor_ == Flavor::kAllocate || flavor_ == Flavor::kShared;
  t.base = static_cast<char*>(base_);
  if (t.local >= 0 && user_shared(t.local)) {
    // Node peers update this memory with CPU atomics: so must requests from other nodes.
    t.cpu_atomics = true;
    t.remote_base = reinterpret_cast<uint64_t>(base_);
  }
  t.size = static_cast<uint64_t>(size_);
  t.disp_unit = disp_unit_;
  static const pid_t me = getpid();  // a system call: every request builds this view
  t.pid = me;
  return t;
}

Status Window::check_where(TargetView& t, uint64_t* where, MPI_Count count,
                           const dt::TypeInfo& tt) {
  if (count == 0 || tt.size == 0) return kOk;
  const __int128 last = static_cast<__int128>(count - 1) * tt.extent;
  const __int128 lo = static_cast<__int128>(*where) + std::min<__int128>(0, last) + tt.true_lb;
  const __int128 hi =
      static_cast<__int128>(*where) + std::max<__int128>(0, last) + tt.true_lb + tt.true_extent;
  return check_span(t, where, lo, hi);
}

Status Window::check_span(TargetView& t, uint64_t* where, __int128 lo, __int128 hi) {
  if (t.dynamic) {
    if (lo < 0 || hi > static_cast<__int128>(UINT64_MAX))
      return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
    return resolve_dynamic(t, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi), where);
  }
  if (lo < 0 || hi > static_cast<__int128>(t.size))
    return Err(MPI_ERR_RMA_RANGE, "osprey: access reaches past the target's window");
  return kOk;
}

bool Window::am_on_request(am::Endpoint& ep, int src, const char* msg, std::size_t n) {
  AmGuard g(am_->mu);
  const am::Request& r = *reinterpret_cast<const am::Request*>(msg);
  if (r.kind == Kind::kFence && !(r.flags & am::kFenceMark)) {
    // Barrier signals are not ordered behind the sender's operations (they follow a flush);
    // fence marks are (am_retire counts them).
    AmState::FenceSignal& s = am_->fence_signals[AmState::fence_key(r.epoch, r.where & 31)];
    ++s.count;
    s.any |= static_cast<uint32_t>(r.bytes) & 0xffff;
    s.all &= static_cast<uint32_t>(r.bytes >> 16) & 0xffff;
    return true;
  }
  if (src != am_->last_origin) {
    am_->last_origin = src;
    am_->last_state = &am_->origins[src];  // map nodes never move
  }
  OriginState& os = *am_->last_state;
  if (r.kind == Kind::kFence && os.queue.empty() && !os.window_sends) {
    am_count_mark(r);  // a mark on its own, and all before it is done
    return true;
  }
  if (os.queue.empty() && am_run_plain(ep, src, os, r, msg)) return true;
  Deferred d;
  d.msg = msg;
  d.n = n;
  if (os.queue.empty() && am_execute(ep, src, os, d)) return true;
  d.copy.assign(msg, msg + n);
  d.msg = d.copy.data();
  os.queue.push_back(std::move(d));
  am_count_deferred(1);
  return false;
}

// Changed under AmState::mu only, so a plain store suffices for the window's own count.
void Window::am_count_deferred(int delta) {
  am_->deferred.store(am_->deferred.load(std::memory_order_relaxed) + static_cast<uint32_t>(delta),
                      std::memory_order_relaxed);
  progress::count(ci_->am_work(), delta);
}

bool Window::am_advance_target(am::Endpoint& ep) {
  if (!am_->deferred.load(std::memory_order_relaxed)) return false;
  bool did = false;
  for (auto& [src, os] : am_->origins) {
    while (!os.queue.empty()) {
      Deferred& d = os.queue.front();
      if (!am_execute(ep, src, os, d)) break;
      ep.finished(src);
      os.queue.pop_front();
      am_count_deferred(-1);
      did = true;
    }
  }
  return did;
}

// The commonest requests, run as am_execute's stages would run them, without the stages: an
// operation of a dense target with its data inline both ways and nothing to wait for (no lock
// to take, batch, layout or separate payload; its fence or PSCW epoch open here, not the last
// of a PSCW epoch). A put or get needs no target type: per 8-byte put + flush the target's
// instructions went from 1,680 to 1,090 (callgrind), an accumulate's from 2,110 to 1,790.
// False, having changed nothing, for any other request and for one that fails its checks (the
// general path reports that).
bool Window::am_run_plain(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                          const char* msg) {
  constexpr uint16_t kPlain = am::kFlush | am::kDynamic | am::kFenceEpoch | am::kPscwEpoch;
  if (r.kind < Kind::kPut || r.kind > Kind::kCas || (r.flags & ~kPlain) != 0 ||
      am::completes_pscw(r) || r.tcount <= 0 || r.bytes == 0)
    return false;
  const bool returns = returns_data(r.kind);
  if (returns && (!r.reply_tag || !reply_inline(r.bytes))) return false;
  if (!am_gate(r, os)) return false;
  TargetView self = self_view();
  uint64_t where = r.where;
  const bool plain = r.kind == Kind::kPut || r.kind == Kind::kGet;
  dt::TypeInfo* tt = nullptr;
  char* at = nullptr;  // a put's or get's first byte
  Status st = kOk;
  if (plain) {
    // A dense type's bytes, as am_target_type and check_where take them, without the type.
    if (r.bytes % static_cast<uint64_t>(r.tcount) != 0) return false;
    const __int128 lo = static_cast<__int128>(where) + r.tlb;
    if (!check_span(self, &where, lo, lo + static_cast<__int128>(r.bytes)).ok()) return false;
    at = direct_address(self, where) + r.tlb;
    if (r.kind == Kind::kPut) cpu::copy(at, msg + sizeof(am::Request), r.bytes);
  } else {
    if (!am_target_type(r, os, &tt).ok() || !check_where(self, &where, r.tcount, *tt).ok())
      return false;
    const Body b = parse(r, msg);
    st = am_apply(r, self, where, direct_address(self, where), *tt, b.data, b.compare, kOk);
  }
  // Told as am_run and am_retire tell it: an earlier request's error first.
  if (!r.reply_tag) {
    if (!os.error) os.error = st.cls;
    return true;
  }
  const int status = os.error ? os.error : st.cls;
  os.error = 0;
  const bool data = returns && st.ok();
  am::Buffer reply = ep.buffer();
  reply.resize(sizeof(am::Reply) + (data ? r.bytes : 0));
  if (data && plain) {
    cpu::copy(reply.data() + sizeof(am::Reply), at, r.bytes);
  } else if (data) {
    const dt::TypeInfo* bt = dt::basic_type(tt->repr, tt->elem_size);
    dt::pack(reply.data() + sizeof(am::Reply), am_->scratch_old.data(),
             r.kind == Kind::kCas ? 1 : static_cast<MPI_Count>(r.bytes / r.elem_size),
             bt ? *bt : *tt);
  }
  ep.send_reply(src, r.reply_tag, status, data ? am::kReplyData : 0, std::move(reply));
  return true;
}

// Runs one request as far as it can go; true when it is finished. A request moves through
// explicit stages, each of which may wait (returning false) and resumes where it stopped:
//   kGate       its lock, fence epoch or PSCW epoch at this target
//   kLayout     a target layout that follows as a separate message
//   kBatchData  the data of batched puts by reference, scattered into place
//   kPayload    a payload that follows as a separate message
//   kRun        the operation itself (and its reply)
//   kRetire     the end of the origin's epoch it may carry (unlock, PSCW complete) waits until
//               nothing this origin asked for still reads window memory
bool Window::am_execute(am::Endpoint& ep, int src, OriginState& os, Deferred& d) {
  using S = Deferred::Stage;
  const am::Request& r = *reinterpret_cast<const am::Request*>(d.msg);
  switch (d.stage) {
    case S::kGate:
      if (!am_gate(r, os)) return false;
      d.stage = S::kLayout;
      [[fallthrough]];
    case S::kLayout:
      if (!am_await_layout(ep, src, os, r, d)) return false;
      d.stage = S::kBatchData;
      [[fallthrough]];
    case S::kBatchData:
      if (!am_await_batch(ep, src, os, r, d)) return false;
      d.stage = S::kPayload;
      [[fallthrough]];
    case S::kPayload:
      if (!am_await_payload(ep, src, os, r, d)) return false;
      d.stage = S::kRun;
      [[fallthrough]];
    case S::kRun:
      am_run(ep, src, os, d);
      d.stage = S::kRetire;
      [[fallthrough]];
    case S::kRetire:
      return am_retire(ep, src, os, d);
  }
  return false;
}

bool Window::am_gate(const am::Request& r, OriginState& os) {
  if ((r.flags & (am::kLockShared | am::kLockExclusive)) && !(r.flags & am::kNoCheck)) {
    if (os.lock.stage == shm_lock::AsyncLock::Stage::kIdle)
      os.lock.type = (r.flags & am::kLockExclusive) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
    if (!shm_lock::advance(os.lock, view_.lock(static_cast<uint32_t>(ci_->node_rank()))))
      return false;
  }
  if ((r.flags & am::kFenceEpoch) && am_->fence_epoch < r.epoch) return false;
  if ((r.flags & am::kPscwEpoch) && os.pscw_posts < r.epoch) return false;
  return true;
}

bool Window::am_await_layout(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                             Deferred& d) {
  if (!(r.flags & am::kTypeStore) || r.type_slot >= am::kLayoutSlots) return true;
  const char* wire = nullptr;
  if (r.flags & am::kSeparateLayout) {
    if (!d.layout_posted) {
      d.layout_posted = true;
      d.layout.resize(r.layout_bytes);
      d.layout_in =
          am::Transfer::receive(ep.comm(), src, r.data_tag + 1, d.layout.data(), d.layout.size());
    }
    if (!d.layout_in.test()) return false;
    wire = d.layout.data();
  } else {
    wire = parse(r, d.msg).layout;
  }
  // Into the slot the origin chose: its earlier requests that named the slot have all run.
  if (!os.layouts) os.layouts.reset(new dt::TypeInfo[am::kLayoutSlots]);
  dt::TypeInfo& t = os.layouts[r.type_slot];
  const uint64_t element_bytes = r.tcount > 0 ? r.bytes / static_cast<uint64_t>(r.tcount) : 0;
  if (!am::decode_layout(wire, r.layout_bytes, element_bytes, t.blocks)) t.blocks.clear();
  dt::data_span(t.blocks, &t.true_lb, &t.true_extent);
  t.dense = false;
  return true;
}

Status Window::am_target_type(const am::Request& r, OriginState& os, dt::TypeInfo** out) {
  dt::TypeInfo* t = &am_->scratch_type;  // reused: no allocation per request
  Status st = kOk;
  const bool layout = r.flags & (am::kTypeStore | am::kTypeCached);
  if (layout &&
      (r.type_slot >= am::kLayoutSlots || !os.layouts || os.layouts[r.type_slot].blocks.empty()))
    st = Err(MPI_ERR_INTERN, "osprey: a request names a target layout this rank never got");
  if (layout && st.ok()) {
    t = &os.layouts[r.type_slot];
  } else {
    t->blocks.assign(1, dt::Block{r.tlb, static_cast<MPI_Aint>(r.tcount ? r.bytes / r.tcount : 0)});
    t->dense = true;
    t->true_lb = r.tlb;
  }
  t->repr = static_cast<dt::Repr>(r.repr);
  t->elem_size = r.elem_size;
  t->size = r.tcount ? static_cast<MPI_Count>(r.bytes) / r.tcount : 0;
  set_category(*t);
  if (t->dense) {
    t->extent = t->size;
    t->true_extent = t->size;
  } else {
    t->extent = r.textent;
  }
  // The data the layout covers must be the data the request carries (a corrupt request must
  // not make the target read past its payload).
  if (st.ok() && r.tcount) {
    uint64_t per = 0, total = 0;
    if (t->dense) {
      per = r.bytes / static_cast<uint64_t>(r.tcount);
    } else {
      for (const dt::Block& x : t->blocks)
        per += static_cast<uint64_t>(x.bytes());
    }
    if (__builtin_mul_overflow(per, static_cast<uint64_t>(r.tcount), &total) || total != r.bytes)
      st = Err(MPI_ERR_INTERN, "osprey: a request's layout does not match its data");
  }
  *out = t;
  return st;
}

bool Window::am_await_payload(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                              Deferred& d) {
  if (!(r.flags & am::kSeparateData)) return true;
  if (!d.payload_posted) {
    d.payload_posted = true;
    dt::TypeInfo* tt = nullptr;
    TargetView self = self_view();
    uint64_t where = r.where;
    Status st = am_target_type(r, os, &tt);
    if (st.ok()) st = check_where(self, &where, r.tcount, *tt);
    const std::size_t piece = remote_piece_toward(src, r.bytes);  // as the origin cut it
    // With pieces, the request may carry the payload's first bytes (request_check: fewer than
    // the whole): the pieces are the rest.
    const char* head_data = parse(r, d.msg).data;
    const std::size_t head = piece ? static_cast<std::size_t>(d.msg + d.n - head_data) : 0;
    if (st.ok() && r.kind == Kind::kPut) {
      // Straight into the window.
      char* to = direct_address(self, where);
      dt::unpack_head(to, r.tcount, *tt, head_data, head);
      d.payload_in =
          am::Transfer::receive(ep.comm(), src, r.data_tag, to, r.tcount, *tt, piece, head);
    } else {
      // A buffer to combine from; or, out of range, taken and dropped (the origin learns why).
      d.data.resize(r.bytes);
      if (head) std::memcpy(d.data.data(), head_data, head);
      d.payload_in = am::Transfer::receive(ep.comm(), src, r.data_tag, d.data.data() + head,
                                           r.bytes - head, piece);
    }
  }
  if (d.payload_in.test()) return true;
  am::watch(d.payload_in.pending());  // tested with the next slot test
  return false;
}

// The short operations a request carries in front of its own (packet.h, BatchedOp), in order.
// Puts and accumulates answer nothing: the first error waits for the origin's next
// acknowledgement. Gets name where their data lies, in `gets` (zeros for a get that fails: the
// reply's status tells its error).
void Window::am_run_batch(OriginState& os, const char* p, uint32_t bytes, uint16_t flags,
                          std::vector<am::Piece>* gets, std::vector<am::Piece>* alone) {
  // Not const: a megabyte of zeros in .bss costs nothing until read, in .rodata it would
  // be a megabyte of the library file.
  static char zeros[am::kBatchedGetMax];
  const TargetView self = self_view();
  std::vector<char>& operand = am_->scratch_operand;
  for (uint64_t at = 0; at < bytes;) {
    am::BatchedOp b;
    std::memcpy(&b, p + at, sizeof b);
    const char* data = p + at + sizeof b;
    at += am::batched_record_bytes(b.kind, b.bytes, b.separate);
    // A put by reference landed with the batch payload, its error told then (am_await_batch).
    if (!b.bytes || b.separate) continue;
    TargetView view;
    uint64_t where;
    Status st = am_place(self, b, &view, &where);
    dt::TypeInfo& t = am_->scratch_type;
    if (b.kind == Kind::kGet) {
      (am::alone(flags, b.bytes) ? alone : gets)
          ->push_back({st.ok() ? direct_address(view, where) : zeros, b.bytes});
    } else if (st.ok() && b.kind == Kind::kPut) {
      std::memcpy(direct_address(view, where), data, b.bytes);
    } else if (st.ok() && !dt::basic_type(t.repr, t.elem_size)) {
      st = Err(MPI_ERR_TYPE, "osprey: a batched accumulate names no basic type");
    } else if (st.ok()) {
      const dt::TypeInfo* bt = dt::basic_type(t.repr, t.elem_size);
      const uint64_t nelem = b.bytes / b.elem_size;
      operand.resize(nelem * static_cast<uint64_t>(bt->extent));
      dt::unpack(operand.data(), static_cast<MPI_Count>(nelem), *bt, data);
      t.cat = bt->cat;
      RmaOp a;
      a.where = where;
      a.op = static_cast<dt::Op>(b.op);
      a.tcount = 1;
      a.ttype = &t;
      a.origin = operand.data();
      a.ocount = static_cast<MPI_Count>(nelem);
      a.otype = bt;
      st = apply_direct(view, a);
    }
    if (!st.ok() && !os.error) os.error = st.cls;
  }
}

// Where the bytes of batched record b lie in this window (checked as for a request of its own):
// *view and *where as check_where leaves them, am_->scratch_type a dense run of b.bytes.
Status Window::am_place(const TargetView& self, const am::BatchedOp& b, TargetView* view,
                        uint64_t* where) {
  dt::TypeInfo& t = am_->scratch_type;
  t.blocks.assign(1, dt::Block{0, static_cast<MPI_Aint>(b.bytes)});
  t.dense = true;
  t.true_lb = 0;
  t.repr = static_cast<dt::Repr>(b.repr);
  t.elem_size = b.elem_size;
  t.size = t.extent = t.true_extent = b.bytes;
  set_category(t);
  *view = self;
  view->dynamic = b.dynamic != 0;
  *where = b.where;
  return check_where(*view, where, 1, t);
}

// The data of the puts a request's batch carries by reference (kBatchPayload): one message,
// scattered by the host straight into their places, before the batch runs and before the
// carrier's own payload (both come on data_tag, in that order). A put out of range lands in a
// buffer of its own and its error waits for the next acknowledgement, as a batched put's does.
// Places that overlap (a benchmark putting the same bytes again and again) are received into
// one buffer and copied in order: a receive datatype may not overlap itself.
bool Window::am_await_batch(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                            Deferred& d) {
  if (!(r.flags & am::kBatchPayload)) return true;
  if (!d.batch_posted) {
    d.batch_posted = true;
    const TargetView self = self_view();
    std::vector<am::Piece>& places = d.batch_places;  // in record order; out of range: nullptr
    places.clear();
    std::size_t total = 0, lost = 0;
    const char* p = d.msg + sizeof(am::Request);
    for (uint64_t at = 0; at < r.batch_bytes;) {
      am::BatchedOp b;
      std::memcpy(&b, p + at, sizeof b);
      at += am::batched_record_bytes(b.kind, b.bytes, b.separate);
      if (!b.separate) continue;
      TargetView view;
      uint64_t where;
      const Status st = am_place(self, b, &view, &where);
      if (!st.ok() && !os.error) os.error = st.cls;
      places.push_back({st.ok() ? direct_address(view, where) : nullptr, b.bytes});
      total += b.bytes;
      lost += st.ok() ? 0 : b.bytes;
    }
    const std::size_t piece = remote_piece_toward(src, total);  // as the origin cut it
    if (overlapping(places)) {
      d.discard.resize(total);
      d.batch_in =
          am::Transfer::receive(ep.comm(), src, r.data_tag, d.discard.data(), total, piece);
    } else {
      // Straight into place; what is out of range lands in a buffer, each piece apart.
      d.discard.resize(lost);
      std::vector<am::Piece>& pieces = am_->scratch_pieces;
      pieces.assign(places.begin(), places.end());
      std::size_t off = 0;
      for (am::Piece& x : pieces)
        if (!x.p) {
          x.p = d.discard.data() + off;
          off += x.n;
        }
      d.batch_in = am::Transfer::receive(ep.comm(), src, r.data_tag, pieces.data(),
                                         static_cast<int>(pieces.size()), piece);
      places.clear();  // nothing to copy afterwards
    }
  }
  if (!d.batch_in.test()) {
    am::watch(d.batch_in.pending());  // tested with the next slot test
    return false;
  }
  const char* from = d.discard.data();
  for (const am::Piece& x : d.batch_places) {  // in record order: the last put to a place wins
    if (x.p) std::memmove(const_cast<void*>(x.p), from, x.n);
    from += x.n;
  }
  d.batch_places.clear();
  return true;
}

// Answers request r with the reply built in d.reply (batched gets' data, or where it lies in
// d.pieces, then the operation's own inline data), or one without data.
void Window::am_reply(am::Endpoint& ep, int src, OriginState& os, const am::Request& r, int status,
                      uint16_t flags, Deferred& d) {
  if (d.reply.empty()) d.reply = ep.buffer();
  if (d.reply.size() < sizeof(am::Reply)) d.reply.resize(sizeof(am::Reply));
  if (d.alone_sent) flags |= am::kAloneData;
  if (d.pieces.empty())
    ep.send_reply(src, r.reply_tag, status, flags, std::move(d.reply));
  else
    ep.send_reply(src, r.reply_tag, status, flags, std::move(d.reply), d.pieces.data(),
                  static_cast<int>(d.pieces.size()), &os.window_sends);
  d.reply.clear();
  d.replied = true;
}

// What a request changes here: a put's data, an accumulate-style operation (the old data of the
// kinds that return it left in am_->scratch_old, in basic elements) or a compare_and_swap, at
// `addr` (`where` in the window) of target type tt. Nothing unless `st`, the request's checks,
// passed; returns them, else the operation's own status.
Status Window::am_apply(const am::Request& r, const TargetView& self, uint64_t where, char* addr,
                        dt::TypeInfo& tt, const char* payload, const unsigned char* compare,
                        Status st) {
  const dt::Op op = static_cast<dt::Op>(r.op);
  const uint64_t nelem = r.elem_size ? r.bytes / r.elem_size : 0;
  const dt::TypeInfo* bt = r.bytes ? dt::basic_type(tt.repr, tt.elem_size) : nullptr;
  std::vector<char>& operand = am_->scratch_operand;  // basic-element arrays in memory layout
  std::vector<char>& old = am_->scratch_old;
  operand.clear();
  old.clear();
  // What request_check cannot know: elements of a kind the host reduces (as am_run_batch
  // requires of batched accumulates), one of them for a compare_and_swap.
  const bool reduces = r.kind == Kind::kAcc || r.kind == Kind::kGetAcc || r.kind == Kind::kFop;
  const bool cas = r.kind == Kind::kCas;
  if (st.ok() && (reduces || cas) && ((r.bytes && !bt) || (cas && r.bytes != r.elem_size)))
    st = Err(MPI_ERR_TYPE, "osprey: a request's elements are of no basic type");
  if (st.ok() && bt && reduces) {
    if (op != dt::Op::kNoOp) {
      operand.resize(nelem * static_cast<uint64_t>(bt->extent));
      dt::unpack(operand.data(), static_cast<MPI_Count>(nelem), *bt, payload);
    }
    if (r.kind != Kind::kAcc) old.resize(nelem * static_cast<uint64_t>(bt->extent));
    tt.cat = bt->cat;
  }
  switch (r.kind) {
    case Kind::kPut:
      if (st.ok() && !(r.flags & am::kSeparateData) && r.bytes)
        dt::unpack(addr, r.tcount, tt, payload);
      break;
    case Kind::kAcc:
    case Kind::kGetAcc:
    case Kind::kFop:
      if (st.ok() && r.bytes) {
        RmaOp a;
        a.where = where;
        a.op = op;
        a.tcount = r.tcount;
        a.ttype = &tt;
        if (!operand.empty()) {
          a.origin = operand.data();
          a.ocount = static_cast<MPI_Count>(nelem);
          a.otype = bt;
        }
        if (!old.empty()) {
          a.result = old.data();
          a.rcount = static_cast<MPI_Count>(nelem);
          a.rtype = bt;
        }
        st = apply_direct(self, a);
      }
      break;
    case Kind::kCas:
      if (st.ok()) {
        old.resize(r.elem_size);
        cas_mapped(self, tt.repr, tt.elem_size, addr + tt.true_lb, payload, compare, old.data());
      }
      break;
    case Kind::kGet:
    case Kind::kComplete:
    case Kind::kSync:
    case Kind::kFence:
      break;
  }
  return st;
}

void Window::am_run(am::Endpoint& ep, int src, OriginState& os, Deferred& d) {
  const am::Request& r = *reinterpret_cast<const am::Request*>(d.msg);
  // The reply is built in place: the batched gets' data, then this operation's inline data.
  // The batch runs first; its gets say where their data lies. Large batches send it from
  // there (packet.h, direct_reply), unless the reply would go only once the request retires
  // and ends the origin's epoch here: the lock is released then, and the memory may change
  // under the send. Else it is copied into the reply now.
  if (r.flags & am::kBatched)
    am_run_batch(os, d.msg + sizeof(am::Request), r.batch_bytes, r.flags, &d.pieces, &d.alone);
  // Large gets' data goes at once, each in a message of its own from where it lies (counted:
  // the origin's epoch here ends only once they are sent), before this request's own data.
  uint32_t in_reply = r.batch_reply;
  for (const am::Piece& x : d.alone) {
    ep.send_layout(src, r.data_tag + 2, x.p, static_cast<MPI_Count>(x.n), *dt::predefined(MPI_BYTE),
                   &os.window_sends);
    in_reply -= static_cast<uint32_t>(x.n);
    d.alone_sent = true;
  }
  d.alone.clear();
  const bool own_inline = returns_data(r.kind) && reply_inline(r.bytes);
  const bool gather = am::direct_reply(in_reply, d.pieces.size(), ci_->local_index(src) >= 0) &&
                      (returns_data(r.kind) || !ends_epoch(r));
  const uint32_t copied = gather ? 0 : in_reply;
  if (in_reply || own_inline) {
    d.reply = ep.buffer();
    d.reply.resize(sizeof(am::Reply) + copied + (own_inline ? r.bytes : 0));
  }
  if (!gather) {
    char* to = d.reply.data() + sizeof(am::Reply);
    for (const am::Piece& p : d.pieces) {
      cpu::copy(to, p.p, p.n);
      to += p.n;
    }
    d.pieces.clear();
  }
  const Body b = parse(r, d.msg);
  dt::TypeInfo* ttp = nullptr;
  Status st = am_target_type(r, os, &ttp);
  dt::TypeInfo& tt = *ttp;
  TargetView self = self_view();
  uint64_t where = r.where;
  if (st.ok() && r.kind != Kind::kSync && r.kind != Kind::kComplete)
    st = check_where(self, &where, r.tcount, tt);
  char* addr = r.bytes && st.ok() ? direct_address(self, where) : nullptr;
  const char* payload = (r.flags & am::kSeparateData) ? d.data.data() : b.data;
  const uint64_t nelem = r.elem_size ? r.bytes / r.elem_size : 0;
  const dt::TypeInfo* bt = r.bytes ? dt::basic_type(tt.repr, tt.elem_size) : nullptr;
  const std::vector<char>& old = am_->scratch_old;  // what accumulate-style operations return
  // Data for the origin: inline, packed straight into the reply; else window memory is sent
  // from where it is (the origin's epoch here ends only once that send completed, see
  // am_retire), anything else packed into a buffer the endpoint keeps until the send completes.
  auto send_data_reply = [&](const void* base, MPI_Count count, const dt::TypeInfo& layout,
                             bool from_window) {
    // The first error wins: an earlier batched operation's, then this request's.
    const int status = os.error ? os.error : st.ok() ? 0 : st.cls;
    os.error = 0;
    if (st.ok() && own_inline) {
      dt::pack(d.reply.data() + sizeof(am::Reply) + copied, base, count, layout);
      am_reply(ep, src, os, r, status, am::kReplyData, d);
      return;
    }
    if (own_inline) d.reply.resize(sizeof(am::Reply) + copied);  // no data after all
    // Data in remote pieces: the reply brings its first bytes (as the origin expects).
    const std::size_t head = st.ok() ? reply_head_toward(src, r.bytes, in_reply) : 0;
    if (head) {
      if (d.reply.empty()) d.reply = ep.buffer();
      d.reply.resize(sizeof(am::Reply) + copied + head);
      dt::pack_head(d.reply.data() + sizeof(am::Reply) + copied, base, count, layout, head);
    }
    am_reply(ep, src, os, r, status, st.ok() ? am::kReplyData : 0, d);
    if (!st.ok()) return;
    const std::size_t piece = remote_piece_toward(src, r.bytes);  // as the origin expects
    // A network transport sends a gathered message far slower than a copy and a contiguous
    // one (packet.h, direct_reply): toward another node scattered window data is packed, up
    // to kPackedGetMax (a larger one would need as much memory again).
    if (from_window && (layout.dense || ci_->local_index(src) >= 0 || r.bytes > kPackedGetMax)) {
      ep.send_layout(src, r.data_tag + 2, base, count, layout, &os.window_sends, piece, head);
    } else {
      am::Buffer packed = ep.buffer();
      packed.resize(r.bytes);
      dt::pack(packed.data(), base, count, layout);
      ep.send_owned(src, r.data_tag + 2, std::move(packed), piece, head);
    }
  };
  st = am_apply(r, self, where, addr, tt, payload, b.compare, st);
  if (r.kind == Kind::kGet)
    send_data_reply(addr, r.tcount, tt, true);
  else if (returns_data(r.kind))
    send_data_reply(old.data(), r.kind == Kind::kCas ? 1 : static_cast<MPI_Count>(nelem),
                    bt ? *bt : tt, false);
  d.status = st.cls;
}

bool Window::am_sends_done() {
  AmGuard g(am_->mu);
  for (const auto& [src, os] : am_->origins)
    if (os.window_sends) return false;
  return true;
}

bool Window::am_retire(am::Endpoint& ep, int src, OriginState& os, Deferred& d) {
  const am::Request& r = *reinterpret_cast<const am::Request*>(d.msg);
  if (ends_epoch(r) && os.window_sends) {
    ep.reap();  // the sends complete as the origin receives them
    if (os.window_sends) return false;
  }
  if (d.status && !d.replied && !r.reply_tag && !os.error) os.error = d.status;
  if (am::completes_pscw(r)) ++am_->pscw_completes;
  if (r.flags & am::kUnlock)
    shm_lock::release(os.lock, view_.lock(static_cast<uint32_t>(ci_->node_rank())));
  if (!d.replied && r.reply_tag) {
    const int status = os.error ? os.error : d.status;
    os.error = 0;
    am_reply(ep, src, os, r, status, 0, d);
  }
  if (r.flags & am::kFenceMark) am_count_mark(r);
  return true;
}

// Everything the origin sent for the epoch is done here (requests run in order).
void Window::am_count_mark(const am::Request& r) {
  AmState::FenceSignal& s =
      am_->fence_signals[AmState::fence_key(r.epoch, AmState::kFenceMarkRound)];
  ++s.count;
  s.any |= r.fence_bits;
  s.all &= r.fence_bits;
}

}  // namespace osprey::rma
