#include "transport/am/transfer.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <vector>

#include "progress/engine.h"
#include "util/config.h"

namespace osprey::am {
namespace {

// Written only while one thread at a time is in the engine; atomic because transfers of other
// threads look at it (and find it empty) when they end.
std::atomic<MPI_Request*> watched{nullptr};
// The watched request a slot test found still pending in this round: its owner's own test in
// the same round would be a second pass of the host's progress for nothing.
std::atomic<MPI_Request*> tested{nullptr};

// Count and datatype for `bytes` plain bytes; *owned is a type to free after the call.
int host_count(std::size_t bytes, MPI_Datatype* type, MPI_Datatype* owned) {
  *owned = MPI_DATATYPE_NULL;
  *type = MPI_BYTE;
  if (bytes <= static_cast<std::size_t>(INT_MAX)) return static_cast<int>(bytes);
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  MPI_Datatype piece;
  PMPI_Type_contiguous(static_cast<int>(kPiece), MPI_BYTE, &piece);
  const int lens[2] = {static_cast<int>(bytes / kPiece), static_cast<int>(bytes % kPiece)};
  const MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(bytes / kPiece * kPiece)};
  const MPI_Datatype types[2] = {piece, MPI_BYTE};
  PMPI_Type_create_struct(2, lens, displs, types, owned);
  PMPI_Type_free(&piece);
  PMPI_Type_commit(owned);
  *type = *owned;
  return 1;
}

}  // namespace

// A datatype may be freed while communication that uses it is pending (MPI-3.1 4.1.9).
void isend_bytes(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                 MPI_Request* req) {
  MPI_Datatype type, owned;
  const int count = host_count(bytes, &type, &owned);
  PMPI_Isend(buf, count, type, dest, tag, comm, req);
  if (owned != MPI_DATATYPE_NULL) PMPI_Type_free(&owned);
}

void irecv_bytes(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm, MPI_Request* req) {
  MPI_Datatype type, owned;
  const int count = host_count(bytes, &type, &owned);
  PMPI_Irecv(buf, count, type, src, tag, comm, req);
  if (owned != MPI_DATATYPE_NULL) PMPI_Type_free(&owned);
}

MPI_Datatype pieces_type(const Piece* pieces, int n) {
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  lens.reserve(static_cast<std::size_t>(n));
  displs.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (!pieces[i].n) continue;
    MPI_Aint a;
    PMPI_Get_address(pieces[i].p, &a);
    lens.push_back(static_cast<int>(pieces[i].n));
    displs.push_back(a);
  }
  MPI_Datatype t;
  PMPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), displs.data(), MPI_BYTE,
                            &t);
  PMPI_Type_commit(&t);
  return t;
}

dt::ByteLayout pieces_layout(const Piece* pieces, int n) {
  // One piece needs no datatype (building and committing one cost a PSCW epoch's lone 8 KiB
  // put 0.3 us between its request and its payload).
  if (n == 1 && pieces[0].n <= static_cast<std::size_t>(INT_MAX))
    return {const_cast<void*>(pieces[0].p), static_cast<int>(pieces[0].n), MPI_BYTE, false};
  return {MPI_BOTTOM, 1, pieces_type(pieces, n), true};
}

void watch(MPI_Request* r) {
  if (!progress::concurrent_threads.load(std::memory_order_relaxed))
    watched.store(r, std::memory_order_relaxed);
}

MPI_Request* take_watched() {
  MPI_Request* r = watched.load(std::memory_order_relaxed);
  if (r) watched.store(nullptr, std::memory_order_relaxed);
  if (tested.load(std::memory_order_relaxed)) tested.store(nullptr, std::memory_order_relaxed);
  return r;
}

void watched_pending(MPI_Request* r) {
  tested.store(r, std::memory_order_relaxed);
}

std::size_t remote_piece(std::size_t bytes) {
  const std::size_t piece = config().remote_piece;
  return piece && bytes > piece && bytes <= kRemotePieces * piece ? piece : 0;
}

Transfer& Transfer::operator=(Transfer&& o) noexcept {
  if (this != &o) {
    if (!idle()) cancel();
    drop_type();
    o.unwatch();
    req_ = o.req_;
    more_ = std::move(o.more_);
    type_ = o.type_;
    receive_ = o.receive_;
    o.req_ = MPI_REQUEST_NULL;
    o.type_ = MPI_DATATYPE_NULL;
  }
  return *this;
}

Transfer Transfer::pieces(MPI_Comm comm, int peer, int tag, std::vector<dt::ByteLayout>&& pieces,
                          bool receive) {
  Transfer x;
  x.receive_ = receive;
  x.more_ = std::make_unique<std::vector<MPI_Request>>(pieces.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    dt::ByteLayout& l = pieces[i];
    MPI_Request* r = &(*x.more_)[i];
    if (receive)
      PMPI_Irecv(l.addr, l.count, l.type, peer, tag, comm, r);
    else
      PMPI_Isend(l.addr, l.count, l.type, peer, tag, comm, r);
    dt::release(l);  // a datatype may be freed while communication that uses it is pending
  }
  return x;
}

Transfer::~Transfer() {
  if (!idle()) cancel();
  drop_type();
  unwatch();
}

Transfer Transfer::send(MPI_Comm comm, int dest, int tag, const void* buf, std::size_t bytes) {
  Transfer x;
  isend_bytes(buf, bytes, dest, tag, comm, &x.req_);
  return x;
}

Transfer Transfer::send(MPI_Comm comm, int dest, int tag, const void* base, MPI_Count count,
                        const dt::TypeInfo& t, std::size_t piece, std::size_t skip) {
  if (piece)
    return pieces(comm, dest, tag, dt::byte_layout_pieces(base, count, t, piece, skip), false);
  dt::ByteLayout l = dt::byte_layout(base, count, t);
  Transfer x;
  PMPI_Isend(l.addr, l.count, l.type, dest, tag, comm, &x.req_);
  if (l.owned) x.type_ = l.type;
  return x;
}

Transfer Transfer::receive(MPI_Comm comm, int src, int tag, void* buf, std::size_t bytes,
                           std::size_t piece) {
  if (piece)
    return receive(comm, src, tag, buf, static_cast<MPI_Count>(bytes), *dt::predefined(MPI_BYTE),
                   piece);
  Transfer x;
  x.post_receive(comm, src, tag, buf, bytes);
  return x;
}

void Transfer::post_receive(MPI_Comm comm, int src, int tag, void* buf, std::size_t bytes) {
  receive_ = true;
  irecv_bytes(buf, bytes, src, tag, comm, &req_);
}

Transfer Transfer::receive(MPI_Comm comm, int src, int tag, void* base, MPI_Count count,
                           const dt::TypeInfo& t, std::size_t piece, std::size_t skip) {
  if (piece)
    return pieces(comm, src, tag, dt::byte_layout_pieces(base, count, t, piece, skip), true);
  dt::ByteLayout l = dt::byte_layout(base, count, t);
  Transfer x;
  x.receive_ = true;
  PMPI_Irecv(l.addr, l.count, l.type, src, tag, comm, &x.req_);
  if (l.owned) x.type_ = l.type;
  return x;
}

namespace {

// The layouts of `pieces` cut into messages of `piece` bytes each (the last one shorter).
std::vector<dt::ByteLayout> cut(const Piece* pieces, int n, std::size_t piece) {
  std::vector<dt::ByteLayout> out;
  std::vector<Piece> message;
  std::size_t room = piece;
  auto close = [&] {
    out.push_back(pieces_layout(message.data(), static_cast<int>(message.size())));
    message.clear();
    room = piece;
  };
  for (int i = 0; i < n; ++i) {
    const char* p = static_cast<const char*>(pieces[i].p);
    for (std::size_t left = pieces[i].n; left;) {
      const std::size_t k = std::min(left, room);
      message.push_back({p, k});
      p += k;
      left -= k;
      room -= k;
      if (!room) close();
    }
  }
  if (!message.empty()) close();
  return out;
}

}  // namespace

Transfer Transfer::receive(MPI_Comm comm, int src, int tag, const Piece* pieces, int n,
                           std::size_t piece) {
  if (piece) return Transfer::pieces(comm, src, tag, cut(pieces, n, piece), true);
  Transfer x;
  x.receive_ = true;
  dt::ByteLayout l = pieces_layout(pieces, n);
  PMPI_Irecv(l.addr, l.count, l.type, src, tag, comm, &x.req_);
  dt::release(l);  // a datatype may be freed while a receive that uses it is pending
  return x;
}

Transfer Transfer::send(MPI_Comm comm, int dest, int tag, const Piece* pieces, int n,
                        std::size_t piece) {
  if (piece) return Transfer::pieces(comm, dest, tag, cut(pieces, n, piece), false);
  Transfer x;
  dt::ByteLayout l = pieces_layout(pieces, n);
  PMPI_Isend(l.addr, l.count, l.type, dest, tag, comm, &x.req_);
  dt::release(l);  // a datatype may be freed while a send that uses it is pending
  return x;
}

MPI_Request* Transfer::pending() {
  if (req_ != MPI_REQUEST_NULL) return &req_;
  if (more_)
    for (MPI_Request& r : *more_)
      if (r != MPI_REQUEST_NULL) return &r;
  return nullptr;
}

bool Transfer::test_host() {
  if (const MPI_Request* t = tested.load(std::memory_order_relaxed); t && owns(t)) {
    tested.store(nullptr, std::memory_order_relaxed);
    return false;
  }
  int done = 0;
  if (more_ && !pending())  // slot tests completed every message (watch)
    done = 1;
  else if (more_)
    PMPI_Testall(static_cast<int>(more_->size()), more_->data(), &done, MPI_STATUSES_IGNORE);
  else
    PMPI_Test(&req_, &done, MPI_STATUS_IGNORE);
  if (!done) return false;
  finish();
  return true;
}

void Transfer::cancel() {
  if (idle()) return;
  MPI_Request* reqs = more_ ? more_->data() : &req_;
  const int n = more_ ? static_cast<int>(more_->size()) : 1;
  if (receive_)
    for (int i = 0; i < n; ++i)
      if (reqs[i] != MPI_REQUEST_NULL) PMPI_Cancel(&reqs[i]);
  PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
  finish();
}

void Transfer::finish() {
  unwatch();
  req_ = MPI_REQUEST_NULL;
  more_.reset();
  drop_type();
}

bool Transfer::owns(const MPI_Request* r) const {
  return r == &req_ || (more_ && r >= more_->data() && r < more_->data() + more_->size());
}

void Transfer::unwatch() const {
  if (const MPI_Request* t = tested.load(std::memory_order_relaxed); t && owns(t))
    tested.store(nullptr, std::memory_order_relaxed);
  const MPI_Request* w = watched.load(std::memory_order_relaxed);
  if (w && owns(w)) watched.store(nullptr, std::memory_order_relaxed);
}

void Transfer::drop_type() {
  if (type_ != MPI_DATATYPE_NULL) PMPI_Type_free(&type_);
}

}  // namespace osprey::am
