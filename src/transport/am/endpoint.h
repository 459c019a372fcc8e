// One active-message endpoint per private communicator: a fixed receive space of pre-posted
// slots for requests, credit flow control toward every peer, tag allocation for replies and
// separate payloads, and dispatch of arriving requests to the engine's handler.
//
// MPI matches an arriving message to the earliest posted receive, so with every slot posted
// for (MPI_ANY_SOURCE, kRequestTag) the slots complete in the order they were posted:
// polling tests only the oldest one.
//
// Threads: mu_ guards every member that senders and the poller share (slots, credits, sends,
// tags, statistics); it is a leaf lock, never held while calling out or waiting. poll_mu_ makes
// one thread at a time the poller, so that requests are handed to the engine one by one, in
// arrival order (accumulate ordering and acknowledgements rely on it); the poller holds it
// while the engine handles a request, but never mu_.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "datatype/type_info.h"
#include "progress/engine.h"
#include "transport/am/buffer.h"
#include "transport/am/credits.h"
#include "transport/am/packet.h"
#include "transport/am/transfer.h"

namespace osprey::am {

class Endpoint;

// Whether the host's tags (MPI_TAG_UB) reach the ones the message path uses (packet.h); the
// standard promises only 32767, MPICH and Open MPI give far more.
bool host_tags_suffice();

// The engine's side of request dispatch.
class Handler {
 public:
  virtual ~Handler() = default;
  // A request arrived from `src`; msg is valid during the call only. Returns true if the request
  // is finished; otherwise the handler keeps a copy and calls Endpoint::finished(src) once it
  // is. The slot takes a next request either way (its receive is posted again at the next poll
  // round); the sender's credit comes back only then.
  virtual bool on_request(Endpoint& ep, int src, const char* msg, std::size_t n) = 0;
  // Lets the handler advance work that waits on something other than a new request.
  virtual bool advance(Endpoint& ep) = 0;
};

class Endpoint {
 public:
  Endpoint(MPI_Comm comm, Handler* h);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return me_; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  // Largest inline payload of a request whose layout takes `layout_bytes`.
  std::size_t inline_room(std::size_t layout_bytes) const {
    const std::size_t used = sizeof(Request) + layout_bytes + 32;  // 32: CAS compare operand
    return used < slot_bytes_ ? slot_bytes_ - used : 0;
  }

  // Sends a request (header plus `n` payload parts). Returns false, sending nothing, if no
  // credit toward `dest` is available (and asks for more); the caller polls and retries.
  using Part = Piece;
  bool try_request(int dest, Request& r, const Part* parts, int n);
  // The same in two steps, for a caller that must prepare (post the reply receives) only once
  // the request is sure to go: reserve() takes a credit (false: none, and asks for more);
  // send_reserved() then sends on it. With `tags`, fresh tags too (new_tags), in one step.
  bool reserve(int dest, int* tags = nullptr);
  void send_reserved(int dest, Request& r, const Part* parts, int n);

  // A buffer to build a message in place (recycled: empty, with the capacity it had), so that
  // data is copied once, straight from where it lies into what the host sends.
  Buffer buffer();
  // Sends a request built in `buf`, which starts with its Request header (the credits it
  // returns are filled in here), on a credit reserve() took.
  void send_built(int dest, Buffer&& buf);

  // Sends a reply to the origin's pre-posted receive `tag`, with inline data parts.
  void reply(int dest, int tag, int status, const Part* parts, int n);
  // The same, built in `buf`: room for the Reply header, then the data.
  void send_reply(int dest, int tag, int status, uint16_t flags, Buffer&& buf);
  // The same with data gathered from `pieces` (window memory) between the header and the rest
  // of `buf`, sent from where it lies; counted in *pending until the send completes.
  void send_reply(int dest, int tag, int status, uint16_t flags, Buffer&& buf, const Piece* pieces,
                  int n, uint32_t* pending);
  // A reply from `src` arrived at this origin: takes the credits it returns.
  void on_reply(int src, const Reply& r);

  // A separate payload: straight from memory that outlives the send (window memory), or from
  // a buffer the endpoint takes over. `pending` (if given) counts the send until it completes,
  // so that the engine knows when the memory is no longer being read. With `piece`
  // (remote_piece), as messages of that many bytes in order, and then without the first
  // `skip` bytes (which travelled in the reply).
  void send_layout(int dest, int tag, const void* base, MPI_Count count, const dt::TypeInfo& t,
                   uint32_t* pending = nullptr, std::size_t piece = 0, std::size_t skip = 0);
  void send_owned(int dest, int tag, Buffer&& buf, std::size_t piece = 0, std::size_t skip = 0);
  // Completes what sends it can now (poll() does it too, less often).
  bool reap();

  // Fresh tags: replies on t, separate payload on t + 1, its layout on t + 2, reply data on
  // t + 3.
  int new_tags();

  // The handler finished a request it kept: the sender's credit for it may go back.
  void finished(int src);

  // Runs arriving requests and system messages, and completes sends. True if it did work.
  bool poll();

  // Messages this endpoint sent, by kind (OSPREY_STATS=1 prints them at MPI_Finalize).
  struct Stats {
    uint64_t requests = 0, replies = 0, payloads = 0, system = 0, stalls = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  // The Reply header at the front of `buf` (data behind it, plus `gathered` bytes sent from
  // elsewhere); takes the credits owed to dest. Under mu_.
  void write_reply_header(int dest, int status, uint16_t flags, uint64_t gathered, Buffer& buf);
  static constexpr uint32_t kPostedSlots = 8;
  int take_tags();  // new_tags with mu_ held
  // With mu_ held.
  void post(int slot);
  void send_system(int dest, SysKind kind, uint16_t extra, uint16_t returned);
  void on_system(int src, const System& s);
  void stalled(int dest);  // a request toward dest found no credit: ask for more (once)
  bool reap_sends();
  void release_front_send();  // a completed one
  Buffer take_buffer();
  void send_request(int dest, Buffer&& buf);

  progress::EngineMutex mu_;
  progress::EngineMutex poll_mu_;

  MPI_Comm comm_;
  Handler* handler_;
  int me_ = 0, size_ = 0;
  std::size_t slot_bytes_ = 0;
  std::vector<char> space_;
  std::vector<MPI_Request> slot_req_;
  std::deque<int> posted_;      // slots in posting order
  std::vector<int> unposted_;   // slots whose receive the next round posts (poll_requests)
  std::vector<char> expanded_;  // the poller's: a short request in its full form
  System sys_in_{};
  MPI_Request sys_req_ = MPI_REQUEST_NULL;
  Credits credits_;
  int next_tag_ = 0;
  // Sends in flight with the buffers they own.
  struct Outgoing {
    MPI_Request req;
    Buffer buf;
    MPI_Datatype type = MPI_DATATYPE_NULL;  // freed when the send completes
    uint32_t* pending = nullptr;            // decremented when the send completes
  };
  std::deque<Outgoing> sends_;
  std::vector<Outgoing> counted_;  // sends someone counts (tested every poll, in any order)
  bool reap_counted();
  // The poller's part (poll_mu_ held, not mu_): the slots and the system receive are its own.
  bool poll_requests();
  bool poll_system();
  // Hints for the poller, which reaps sends under mu_ only when there is something to reap.
  std::atomic<std::size_t> pending_sends_{0};
  std::atomic<bool> counted_nonempty_{false};
  void note_queues();                      // with mu_ held, after sends_ or counted_ changed
  std::vector<Buffer> spare_;              // recycled send buffers
  bool keep_spare(const Buffer& b) const;  // with mu_ held: whether a finished send's goes there
  Stats stats_;
  bool warned_ = false;
  std::atomic<uint32_t> polls_{0};  // the poller counts; a stalled sender moves it
};

}  // namespace osprey::am
