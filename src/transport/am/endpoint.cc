#include "transport/am/endpoint.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "datatype/byte_layout.h"
#include "progress/slot_rider.h"
#include "transport/am/compact.h"
#include "transport/am/transfer.h"
#include "util/config.h"
#include "util/copy.h"
#include "util/log.h"

namespace osprey::am {

bool host_tags_suffice() {
  // An attribute of MPI_COMM_WORLD (MPI-3.1 8.1.2), valid for every communicator; Open MPI
  // does not attach it to other communicators.
  int* ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  return flag && ub && *ub >= kTagSpaceBase + kTagSpaceSize + 3;
}

Endpoint::Endpoint(MPI_Comm comm, Handler* h) : comm_(comm), handler_(h) {
  PMPI_Comm_rank(comm_, &me_);
  PMPI_Comm_size(comm_, &size_);
  const Config& c = config();
  slot_bytes_ = (sizeof(Request) + 32 + 1024 + c.eager_limit + 63) / 64 * 64;
  // Credits cover the whole receive space, but only a few receives stay posted: the host
  // compares every arriving message (replies included) with each posted wildcard receive.
  // Requests beyond them wait in the host's queue until a slot is reposted, and credits
  // bound how many there can be.
  const uint32_t space = static_cast<uint32_t>(c.recv_slots);
  const uint32_t nslots = std::min<uint32_t>(space, kPostedSlots);
  credits_.init(space, static_cast<uint32_t>(c.credits_per_peer),
                static_cast<uint32_t>(c.banked_credits), size_, me_);
  space_.resize(nslots * slot_bytes_);
  slot_req_.assign(nslots, MPI_REQUEST_NULL);
  for (uint32_t i = 0; i < nslots; ++i)
    post(static_cast<int>(i));
  PMPI_Irecv(&sys_in_, sizeof sys_in_, MPI_BYTE, MPI_ANY_SOURCE, kSystemTag, comm_, &sys_req_);
  OSPREY_LOG(1,
             "message endpoint: %u request slots (%u posted) of %zu bytes, %u credits per "
             "peer, %u banked",
             space, nslots, slot_bytes_, credits_.initial_loan(), credits_.banked());
}

Endpoint::~Endpoint() {
  if (config().stats)
    std::fprintf(stderr,
                 "osprey stats [rank %d]: requests %llu, replies %llu, separate payloads %llu, "
                 "credit messages %llu, stalls %llu\n",
                 me_, static_cast<unsigned long long>(stats_.requests),
                 static_cast<unsigned long long>(stats_.replies),
                 static_cast<unsigned long long>(stats_.payloads),
                 static_cast<unsigned long long>(stats_.system),
                 static_cast<unsigned long long>(stats_.stalls));
  // Receives nobody will match any more: cancel them. Sends in flight: let them finish.
  for (MPI_Request& r : slot_req_) {
    if (r == MPI_REQUEST_NULL) continue;
    PMPI_Cancel(&r);
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  if (sys_req_ != MPI_REQUEST_NULL) {
    PMPI_Cancel(&sys_req_);
    PMPI_Wait(&sys_req_, MPI_STATUS_IGNORE);
  }
  // Credits peers returned after this rank's last poll (a PSCW target's, say) are here
  // already: taken and dropped, since the host warns of messages left unmatched when it shuts
  // down. One still on its way is not waited for: nothing says one will come.
  for (int found = 1; found;) {
    MPI_Message m;
    PMPI_Improbe(MPI_ANY_SOURCE, kSystemTag, comm_, &found, &m, MPI_STATUS_IGNORE);
    System s;
    if (found) PMPI_Mrecv(&s, sizeof s, MPI_BYTE, &m, MPI_STATUS_IGNORE);
  }
  for (Outgoing& o : counted_) {
    PMPI_Wait(&o.req, MPI_STATUS_IGNORE);
    if (o.type != MPI_DATATYPE_NULL) PMPI_Type_free(&o.type);
  }
  for (Outgoing& o : sends_) {
    PMPI_Wait(&o.req, MPI_STATUS_IGNORE);
    if (o.type != MPI_DATATYPE_NULL) PMPI_Type_free(&o.type);
  }
}

void Endpoint::post(int slot) {
  PMPI_Irecv(space_.data() + static_cast<std::size_t>(slot) * slot_bytes_,
             static_cast<int>(slot_bytes_), MPI_BYTE, MPI_ANY_SOURCE, kRequestTag, comm_,
             &slot_req_[static_cast<std::size_t>(slot)]);
  posted_.push_back(slot);
}

int Endpoint::new_tags() {
  progress::EngineLock g(mu_);
  return take_tags();
}

int Endpoint::take_tags() {
  const int t = kTagSpaceBase + next_tag_;
  next_tag_ = (next_tag_ + 4) % kTagSpaceSize;
  return t;
}

void Endpoint::send_layout(int dest, int tag, const void* base, MPI_Count count,
                           const dt::TypeInfo& t, uint32_t* pending, std::size_t piece,
                           std::size_t skip) {
  progress::EngineLock g(mu_);
  auto send = [&](const dt::ByteLayout& l) {
    Outgoing o{MPI_REQUEST_NULL, {}, l.owned ? l.type : MPI_DATATYPE_NULL, pending};
    PMPI_Isend(l.addr, l.count, l.type, dest, tag, comm_, &o.req);
    if (!pending) {
      sends_.push_back(std::move(o));
    } else {
      ++*pending;
      counted_.push_back(std::move(o));
    }
  };
  if (piece) {
    for (const dt::ByteLayout& l : dt::byte_layout_pieces(base, count, t, piece, skip))
      send(l);
  } else {
    send(dt::byte_layout(base, count, t));
  }
  ++stats_.payloads;
  note_queues();
}

void Endpoint::note_queues() {
  pending_sends_.store(sends_.size(), std::memory_order_relaxed);
  counted_nonempty_.store(!counted_.empty(), std::memory_order_relaxed);
}

bool Endpoint::reap_counted() {
  bool did = false;
  for (std::size_t i = 0; i < counted_.size();) {
    int done = 0;
    PMPI_Test(&counted_[i].req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      ++i;
      continue;
    }
    if (counted_[i].type != MPI_DATATYPE_NULL) PMPI_Type_free(&counted_[i].type);
    --*counted_[i].pending;
    counted_[i] = std::move(counted_.back());
    counted_.pop_back();
    note_queues();
    did = true;
  }
  return did;
}

bool Endpoint::reap() {
  progress::EngineLock g(mu_);
  const bool counted = reap_counted();
  return reap_sends() | counted;
}

void Endpoint::send_owned(int dest, int tag, Buffer&& buf, std::size_t piece, std::size_t skip) {
  progress::EngineLock g(mu_);
  // The pieces before the last go first; the last holds the buffer, and sends_ completes in
  // order, so the buffer outlives every piece.
  const std::size_t bytes = buf.size();
  std::size_t at = piece ? skip : 0;
  for (; piece && bytes - at > piece; at += piece) {
    Outgoing o{MPI_REQUEST_NULL, {}};
    isend_bytes(buf.data() + at, piece, dest, tag, comm_, &o.req);
    sends_.push_back(std::move(o));
  }
  Outgoing o{MPI_REQUEST_NULL, std::move(buf)};
  isend_bytes(o.buf.data() + at, bytes - at, dest, tag, comm_, &o.req);
  sends_.push_back(std::move(o));
  note_queues();
  ++stats_.payloads;
}

bool Endpoint::keep_spare(const Buffer& b) const {
  // Finished sends are reaped in bulk (a few hundred lone requests between two polls of a
  // flush loop): keeping only a few dozen buffers made most requests allocate and free one.
  // Small buffers are kept by the hundred, large ones by the few.
  constexpr std::size_t kAny = 64, kSmall = 512, kSmallBytes = 2048;
  if (!b.capacity()) return false;
  return spare_.size() < kAny || (spare_.size() < kSmall && b.capacity() <= kSmallBytes);
}

Buffer Endpoint::take_buffer() {
  Buffer b;
  if (!spare_.empty()) {
    b = std::move(spare_.back());
    spare_.pop_back();
    b.clear();
  }
  return b;
}

Buffer Endpoint::buffer() {
  progress::EngineLock g(mu_);
  return take_buffer();
}

void Endpoint::send_built(int dest, Buffer&& buf) {
  progress::EngineLock g(mu_);
  send_request(dest, std::move(buf));
}

bool Endpoint::reserve(int dest, int* tags) {
  progress::EngineLock g(mu_);
  if (!credits_.can_send(dest)) {
    stalled(dest);
    return false;
  }
  credits_.spend(dest);
  if (tags) *tags = take_tags();
  return true;
}

namespace {

// Header and parts, one after the other, into `buf`.
template <class Header>
void assemble(Buffer& buf, const Header& h, const Endpoint::Part* parts, int n) {
  std::size_t bytes = sizeof h;
  for (int i = 0; i < n; ++i)
    bytes += parts[i].n;
  buf.resize(bytes);
  char* p = buf.data();
  std::memcpy(p, &h, sizeof h);
  p += sizeof h;
  for (int i = 0; i < n; ++i) {
    if (parts[i].n) cpu::copy(p, parts[i].p, parts[i].n);
    p += parts[i].n;
  }
}

}  // namespace

void Endpoint::send_reserved(int dest, Request& r, const Part* parts, int n) {
  progress::EngineLock g(mu_);
  Buffer buf = take_buffer();
  assemble(buf, r, parts, n);
  send_request(dest, std::move(buf));
}

bool Endpoint::try_request(int dest, Request& r, const Part* parts, int n) {
  progress::EngineLock g(mu_);
  if (!credits_.can_send(dest)) {
    stalled(dest);
    return false;
  }
  credits_.spend(dest);
  Buffer buf = take_buffer();
  assemble(buf, r, parts, n);
  send_request(dest, std::move(buf));
  return true;
}

void Endpoint::send_request(int dest, Buffer&& buf) {
  credits_.count_request(static_cast<uint32_t>(config().credit_epoch));
  const uint16_t back = credits_.take_owed(dest);
  std::memcpy(buf.data() + offsetof(Request, credits_back), &back, sizeof back);
  compact_request(buf);
  Outgoing o{MPI_REQUEST_NULL, std::move(buf)};
  isend_bytes(o.buf.data(), o.buf.size(), dest, kRequestTag, comm_, &o.req);
  sends_.push_back(std::move(o));
  note_queues();
  ++stats_.requests;
}

void Endpoint::on_reply(int src, const Reply& r) {
  progress::EngineLock g(mu_);
  credits_.returned(src, r.credits_back);
}

void Endpoint::reply(int dest, int tag, int status, const Part* parts, int n) {
  Buffer buf;
  {
    progress::EngineLock g(mu_);
    buf = take_buffer();
  }
  assemble(buf, Reply{}, parts, n);
  send_reply(dest, tag, status, n ? kReplyData : 0, std::move(buf));
}

void Endpoint::write_reply_header(int dest, int status, uint16_t flags, uint64_t gathered,
                                  Buffer& buf) {
  Reply h{};
  h.status = status;
  h.flags = flags;
  h.credits_back = credits_.take_owed(dest);
  h.bytes = buf.size() - sizeof h + gathered;
  std::memcpy(buf.data(), &h, sizeof h);
}

void Endpoint::send_reply(int dest, int tag, int status, uint16_t flags, Buffer&& buf) {
  progress::EngineLock g(mu_);
  write_reply_header(dest, status, flags, 0, buf);
  Outgoing o{MPI_REQUEST_NULL, std::move(buf)};
  isend_bytes(o.buf.data(), o.buf.size(), dest, tag, comm_, &o.req);
  sends_.push_back(std::move(o));
  note_queues();
  ++stats_.replies;
}

void Endpoint::send_reply(int dest, int tag, int status, uint16_t flags, Buffer&& buf,
                          const Piece* pieces, int n, uint32_t* pending) {
  progress::EngineLock g(mu_);
  uint64_t gathered = 0;
  for (int i = 0; i < n; ++i)
    gathered += pieces[i].n;
  write_reply_header(dest, status, flags, gathered, buf);
  std::vector<Piece> all;
  all.reserve(static_cast<std::size_t>(n) + 2);
  all.push_back({buf.data(), sizeof(Reply)});
  all.insert(all.end(), pieces, pieces + n);
  all.push_back({buf.data() + sizeof(Reply), buf.size() - sizeof(Reply)});
  Outgoing o{MPI_REQUEST_NULL, std::move(buf)};
  o.type = pieces_type(all.data(), static_cast<int>(all.size()));
  o.pending = pending;
  PMPI_Isend(MPI_BOTTOM, 1, o.type, dest, tag, comm_, &o.req);
  ++*pending;
  counted_.push_back(std::move(o));
  note_queues();
  ++stats_.replies;
}

void Endpoint::send_system(int dest, SysKind kind, uint16_t extra, uint16_t returned) {
  System s{};
  s.kind = kind;
  s.extra = extra;
  s.returned = returned;
  Outgoing o{MPI_REQUEST_NULL, take_buffer()};
  // (assign: a resize of a reused buffer, inlined here, made g++ 12 at -O3 see a write past
  // the end of a fresh allocation in the move of its old bytes, -Wstringop-overflow)
  const char* bytes = reinterpret_cast<const char*>(&s);
  o.buf.assign(bytes, bytes + sizeof s);
  PMPI_Isend(o.buf.data(), sizeof s, MPI_BYTE, dest, kSystemTag, comm_, &o.req);
  sends_.push_back(std::move(o));
  note_queues();
  ++stats_.system;
}

void Endpoint::stalled(int dest) {
  // Look at system messages at the next poll: the grant may be there.
  polls_.store(7, std::memory_order_relaxed);
  Peer& p = credits_.peer(dest);
  ++p.send_stalls;
  ++stats_.stalls;
  if (p.request_inflight) return;
  p.request_inflight = true;
  send_system(dest, SysKind::kCreditRequest,
              static_cast<uint16_t>(std::max<uint32_t>(1, p.send_credits / 2)), 0);
}

void Endpoint::on_system(int src, const System& s) {
  switch (s.kind) {
    case SysKind::kCreditRequest: {
      const uint32_t extra = credits_.grant(src, s.extra);
      send_system(src, SysKind::kCreditGrant, static_cast<uint16_t>(extra),
                  credits_.take_owed(src));
      if (credits_.bank_low()) {
        const int victim = credits_.pick_revoke_victim(src);
        if (victim >= 0) {
          credits_.peer(victim).revoke_inflight = true;
          send_system(victim, SysKind::kCreditRevoke, 0, 0);
        }
      }
      break;
    }
    case SysKind::kCreditGrant: {
      Peer& p = credits_.peer(src);
      p.request_inflight = false;
      p.send_credits += s.extra;
      credits_.returned(src, s.returned);
      break;
    }
    case SysKind::kCreditReturn:
      credits_.returned(src, s.returned);
      break;
    case SysKind::kCreditRevoke:
      send_system(src, SysKind::kCreditSurrender, static_cast<uint16_t>(credits_.give_back(src)),
                  0);
      break;
    case SysKind::kCreditSurrender:
      credits_.bank_returned(src, s.extra);
      break;
  }
}

void Endpoint::finished(int src) {
  progress::EngineLock g(mu_);
  const uint32_t back = credits_.processed(src);
  if (back) send_system(src, SysKind::kCreditReturn, 0, static_cast<uint16_t>(back));
}

bool Endpoint::reap_sends() {
  // The oldest sends in one host call: every test runs the host's whole progress (over
  // loopback TCP 0.5 us each), and one test per finished send held an accumulate's request
  // 2 us behind four replies' sends. They are released in order (a buffer outlives its pieces).
  constexpr std::size_t kBatch = 32;
  bool did = false;
  for (bool more = true; more && !sends_.empty();) {
    const std::size_t n = std::min(sends_.size(), kBatch);
    MPI_Request reqs[kBatch];
    for (std::size_t i = 0; i < n; ++i)
      reqs[i] = sends_[i].req;
    int count = 0, which[kBatch];
    PMPI_Testsome(static_cast<int>(n), reqs, &count, which, MPI_STATUSES_IGNORE);
    for (std::size_t i = 0; i < n; ++i)
      sends_[i].req = reqs[i];
    std::size_t popped = 0;
    while (!sends_.empty() && sends_.front().req == MPI_REQUEST_NULL && popped < n) {
      release_front_send();
      ++popped;
      did = true;
    }
    more = popped == n;
  }
  return did;
}

void Endpoint::release_front_send() {
  if (sends_.front().type != MPI_DATATYPE_NULL) PMPI_Type_free(&sends_.front().type);
  if (keep_spare(sends_.front().buf)) spare_.push_back(std::move(sends_.front().buf));
  sends_.pop_front();
  note_queues();
}

bool Endpoint::poll() {
  std::unique_lock<progress::EngineMutex> poller(poll_mu_, std::try_to_lock);
  if (!poller.owns_lock()) return false;  // another thread is the poller now
  // Every MPI test runs the host's whole progress engine, so tests are rationed: the request
  // slot every time, system messages and finished sends less often (both are rare or cheap
  // to leave for later; credits are only needed by a stalled sender). The slots and the
  // system receive belong to the poller: a round that finds nothing takes no other lock.
  const uint32_t round = polls_.load(std::memory_order_relaxed) + 1;
  polls_.store(round, std::memory_order_relaxed);
  bool did = false;
  if ((round & 7) == 0) did |= poll_system();
  did |= poll_requests();
  if ((round & 31) == 0 || pending_sends_.load(std::memory_order_relaxed) > 32 ||
      counted_nonempty_.load(std::memory_order_relaxed)) {
    progress::EngineLock g(mu_);
    if (!counted_.empty()) did |= reap_counted();
    if ((round & 31) == 0 || sends_.size() > 32) did |= reap_sends();
  }
  // The engine advances its waiting work without mu_ (it sends through this endpoint).
  return handler_->advance(*this) || did;
}

bool Endpoint::poll_system() {
  int flag = 0;
  MPI_Status st;
  PMPI_Test(&sys_req_, &flag, &st);
  if (!flag) return false;
  const System s = sys_in_;
  PMPI_Irecv(&sys_in_, sizeof sys_in_, MPI_BYTE, MPI_ANY_SOURCE, kSystemTag, comm_, &sys_req_);
  progress::EngineLock g(mu_);
  on_system(st.MPI_SOURCE, s);
  return true;
}

bool Endpoint::poll_requests() {
  // Slots that took a request last round get their receive now: posted right after the
  // request ran, the receive stood between a fence mark (or any request whose effect a waiter
  // of this process looks for) and the waiter.
  for (int slot : unposted_)
    post(slot);
  unposted_.clear();
  bool did = false;
  MPI_Status st;
  MPI_Request* watched = take_watched();  // with the first slot test only
  while (!posted_.empty()) {
    const int slot = posted_.front();
    const bool got = progress::test_slot(&slot_req_[static_cast<std::size_t>(slot)], &st, watched);
    // Off the round's straight line: most rounds watch nothing (inline, this call cost empty
    // PSCW epochs 5 %, by code placement alone).
    if (watched && *watched != MPI_REQUEST_NULL) [[unlikely]]
      watched_pending(watched);
    watched = nullptr;  // the handler below may end the transfer it belongs to
    if (!got) break;
    posted_.pop_front();
    did = true;
    int count = 0;
    PMPI_Get_count(&st, MPI_BYTE, &count);
    const char* msg = space_.data() + static_cast<std::size_t>(slot) * slot_bytes_;
    if (is_compact(msg, static_cast<std::size_t>(count)) &&
        expand_request(msg, static_cast<std::size_t>(count), expanded_)) {
      msg = expanded_.data();
      count = static_cast<int>(expanded_.size());
    }
    if (static_cast<std::size_t>(count) < sizeof(Request)) {
      // Not even a header (nothing to answer, no credit to account): dropped.
      OSPREY_LOG(1, "truncated request of %d bytes from rank %d dropped", count, st.MPI_SOURCE);
      post(slot);
      continue;
    }
    const Request* r = reinterpret_cast<const Request*>(msg);
    {
      progress::EngineLock g(mu_);
      if (r->credits_back) credits_.returned(st.MPI_SOURCE, r->credits_back);
      if (!credits_.received(st.MPI_SOURCE) && !warned_) {
        warned_ = true;
        std::fprintf(stderr,
                     "osprey: internal error: rank %d sent more requests than its credits\n",
                     st.MPI_SOURCE);
      }
      credits_.count_request(static_cast<uint32_t>(config().credit_epoch));
    }
    // The engine handles the request without mu_ held (it replies through this endpoint).
    // A request that waits (for a lock, say) must not keep its slot: with every slot held by
    // waiting requests, the unlock that ends the wait could never be received.
    // A fence or PSCW signal may end this process's wait: the waiter looks before the next
    // slot is tested (on MPICH over TCP a test is a progress pass of 0.5-0.6 us, against an
    // empty fence's 10). The slots left untested stay first in posted_, ahead of the one
    // reposted next round, so the next poll takes them in order; until then they wait in the
    // host for this process's next osprey call.
    const bool signal =
        r->kind == Kind::kFence || completes_pscw(*r) || (r->flags & kFenceMark) != 0;
    const bool done =
        handler_->on_request(*this, st.MPI_SOURCE, msg, static_cast<std::size_t>(count));
    if (done) finished(st.MPI_SOURCE);
    unposted_.push_back(slot);
    if (signal) break;
  }
  return did;
}

}  // namespace osprey::am
