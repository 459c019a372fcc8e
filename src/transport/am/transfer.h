// One host message the engine waits for: a send from, or a receive into, memory described by a
// datatype layout (moved as bytes, so both sides' type signatures always match) or a plain
// buffer. The engine holds Transfers; only the transport calls the host's point-to-point.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "datatype/byte_layout.h"
#include "datatype/type_info.h"

namespace osprey::am {

// The host's nonblocking send and receive of `bytes` plain bytes, also past INT_MAX (the count
// of the host call is an int: larger messages go as one element of a datatype of 1 GiB pieces).
void isend_bytes(const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                 MPI_Request* req);
void irecv_bytes(void* buf, std::size_t bytes, int src, int tag, MPI_Comm comm, MPI_Request* req);

// Pieces of memory that one host message gathers (a send) or scatters into (a receive), in
// order: the message's bytes are the same whatever the pieces, so each side chooses its own.
struct Piece {
  const void* p;
  std::size_t n;
};
// A host datatype over the pieces (absolute addresses: use with MPI_BOTTOM), to free by the
// caller; every piece below INT_MAX bytes.
MPI_Datatype pieces_type(const Piece* pieces, int n);
// The pieces as one message's buffer and type: one piece as bytes, more through pieces_type
// (owned: to free once the call that uses it returned).
dt::ByteLayout pieces_layout(const Piece* pieces, int n);

// Toward a rank on another node: the piece a message of `bytes` is cut into, or 0 to send it
// whole. Over a network transport the host's rendezvous for messages past its eager size costs
// several round trips (MPICH over UCX's TCP, whose eager size is 8 KiB: 8 KiB and an 8-byte
// answer 51-54 us, as pieces of 7,936 bytes 16-18; 32 KiB 50-150 against 34-43 as pieces of
// 7,936 and 57 as pieces of 4 KiB); from 64 KiB one message is as fast, so only messages of up
// to kRemotePieces pieces are cut. Both sides of a message must ask with the same size.
constexpr std::size_t kRemotePieces = 6;
std::size_t remote_piece(std::size_t bytes);

// A receive the engine is blocked on, which the endpoint's next test of its request slot tests in
// the same host call (progress/slot_rider.h): on MPICH every test runs the host's whole progress
// (over loopback TCP two epoll_wait calls, 0.5-0.6 us), so a payload a slot test took in was seen
// one test later. One at a time, and only while one thread at a time is in the engine (the
// watched request belongs to a transfer that thread may destroy); a transfer that completes,
// moves or goes away forgets it.
void watch(MPI_Request* r);
MPI_Request* take_watched();  // and forgets it
// The slot test tested `r` (the watched request) in this round and it is still pending: the
// owner's next test skips the host once (the next round's slot test tests it again).
void watched_pending(MPI_Request* r);

class Transfer {
 public:
  Transfer() = default;
  Transfer(Transfer&& o) noexcept { *this = static_cast<Transfer&&>(o); }
  Transfer& operator=(Transfer&& o) noexcept;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  // A transfer still in flight is cancelled (receives) or waited for (sends): the memory it
  // names may go away after this.
  ~Transfer();

  static Transfer send(MPI_Comm comm, int dest, int tag, const void* buf, std::size_t bytes);
  // With `piece` (remote_piece), as messages of that many bytes, in order on one tag; and
  // with a piece, all but the layout's first `skip` bytes (which travelled in the request).
  static Transfer send(MPI_Comm comm, int dest, int tag, const void* base, MPI_Count count,
                       const dt::TypeInfo& t, std::size_t piece = 0, std::size_t skip = 0);
  static Transfer receive(MPI_Comm comm, int src, int tag, void* buf, std::size_t bytes,
                          std::size_t piece = 0);
  // The same, whole, into this transfer, which must be idle (no temporary to move from).
  void post_receive(MPI_Comm comm, int src, int tag, void* buf, std::size_t bytes);
  static Transfer receive(MPI_Comm comm, int src, int tag, void* base, MPI_Count count,
                          const dt::TypeInfo& t, std::size_t piece = 0, std::size_t skip = 0);
  // With `piece` (remote_piece of the pieces' total), as messages of that many bytes each, in
  // order on one tag: each side cuts its own pieces at the same offsets.
  static Transfer receive(MPI_Comm comm, int src, int tag, const Piece* pieces, int n,
                          std::size_t piece = 0);
  static Transfer send(MPI_Comm comm, int dest, int tag, const Piece* pieces, int n,
                       std::size_t piece = 0);

  // Not started, or started and complete.
  bool idle() const { return req_ == MPI_REQUEST_NULL && !more_; }
  // True once the message completed (at once if there was none).
  bool test() { return idle() || test_host(); }
  // A receive whose message will not come: gives it up.
  void cancel();
  // Its first message not known complete, for watch(); nullptr if none.
  MPI_Request* pending();

 private:
  bool test_host();
  void finish();
  // Whether r is one of this transfer's requests.
  bool owns(const MPI_Request* r) const;
  // Forgets the watched request (and the slot test's mark on it) if it is one of this
  // transfer's.
  void unwatch() const;
  // Frees the layout type of a transfer whose message a slot test completed (watch).
  void drop_type();
  // One message per layout of `pieces`, all in more_.
  static Transfer pieces(MPI_Comm comm, int peer, int tag, std::vector<dt::ByteLayout>&& pieces,
                         bool receive);
  MPI_Request req_ = MPI_REQUEST_NULL;
  std::unique_ptr<std::vector<MPI_Request>> more_;  // a message in pieces (req_ unused)
  MPI_Datatype type_ = MPI_DATATYPE_NULL;           // owned layout type, freed when done
  bool receive_ = false;
};

}  // namespace osprey::am
