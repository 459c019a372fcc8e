// The operation table of a window's message path (the MPICH "New RMA Design"): a fixed array of
// slots, each a list of target elements, each a list of operation elements in issue order.
// Elements come from two-level pools: the window's own, then a global one shared by all
// windows; when both are empty the caller completes work to free one (aggressive cleanup).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/ops.h"
#include "datatype/type_info.h"
#include "transport/am/buffer.h"
#include "transport/am/packet.h"
#include "transport/am/transfer.h"

namespace osprey::rma {

struct TargetElem;

// A get posted as a batch record (Window::am_record): where its data goes.
struct RecordGet {
  void* to;
  uint32_t bytes;
};

// reset() (op_table.cc) sets every field: a new field goes there too.
struct OpElem {
  OpElem* next = nullptr;
  TargetElem* target = nullptr;
  am::Kind kind = am::Kind::kPut;
  dt::Op op = dt::Op::kNoOp;
  uint16_t flags = 0;  // request flags decided at post time (dynamic, epochs)
  uint32_t epoch = 0;
  // Origin side.
  const void* origin = nullptr;
  MPI_Count ocount = 0;
  const dt::TypeInfo* otype = nullptr;
  void* result = nullptr;
  MPI_Count rcount = 0;
  const dt::TypeInfo* rtype = nullptr;
  unsigned char compare[32] = {};
  // Target side.
  uint64_t where = 0;
  MPI_Count tcount = 0;
  const dt::TypeInfo* ttype = nullptr;
  uint64_t bytes = 0;
  // Progress.
  enum class State : uint8_t { kPending, kIssued, kDone } state = State::kPending;
  bool expects_reply = false;
  bool reply_seen = false;     // the reply header arrived and was read
  int tags = 0;                // reply on tags, reply data / separate payload on tags + 1
  uint64_t seq = 0;            // position among the requests sent to its target
  am::Transfer payload;        // a separate payload, from origin memory
  am::Transfer layout_send;    // a separate target layout
  am::Transfer reply_in;       // the reply header (and inline data)
  am::Transfer reply_data;     // reply data that comes separately, into origin memory
  am::Transfer batch_payload;  // the data of the puts in this request's batch by reference
  std::vector<char> layout;    // a layout sent separately
  am::Buffer reply;            // reply header and inline data (batched gets' data first)
  // Gets that rode in this request's batch (packet.h, BatchedOp): their data comes first in
  // this operation's reply, batch_reply bytes in all; this operation completes them.
  std::vector<OpElem*> batch_gets;
  uint32_t reply_gets = 0;     // bytes of the batched gets' data that come in the reply
  uint16_t request_flags = 0;  // of the request it went in
  // The data of batched gets that come in messages of their own (packet.h, kBatchedGetAlone).
  std::vector<am::Transfer> alone_in;
  // Puts that rode in its batch by reference (packet.h, BatchedOp::separate): their data went
  // in batch_payload; this operation completes them once it is sent.
  std::vector<OpElem*> batch_puts;
  // Gets of the records its request carried: their data comes first in its reply.
  std::vector<RecordGet> record_gets;
  uint32_t batch_reply = 0;
  bool in_batch = false;       // in another request's batch: completed by that request
  bool by_reference = false;   // a put in a batch whose data goes in the batch payload
  bool scattered = false;      // its reply put the batched gets' data in place itself
  bool completes = false;      // the last of a PSCW access epoch: carries its complete
  std::vector<char> own_data;  // a lone record's data, sent as this operation's (am_promote_record)
  MPI_Request user_request = MPI_REQUEST_NULL;  // request-based calls: completed here
  bool embedded = false;  // a target element's own sync request, never in a pool
  void reset();           // to a new operation's state
};

struct TargetElem {
  TargetElem* next = nullptr;  // in its slot
  // In the table's list of every target element: what visits them all (the progress engine,
  // every poll) walks the elements in use, not the slots.
  TargetElem* all_next = nullptr;
  TargetElem* all_prev = nullptr;
  int rank = -1;
  OpElem* head = nullptr;  // issued ops first, then pending ones
  OpElem* tail = nullptr;
  uint32_t pending = 0;    // not yet issued (records included)
  uint32_t live = 0;       // all ops in the list
  bool unacked = false;    // ops went out since the target last acknowledged completion
  uint64_t sent = 0;       // requests sent (the target answers each origin in order, so a
                           // reply to the last one acknowledges them all)
  uint64_t sync_sent = 0;  // the latest request that asked for an acknowledgement
  uint32_t busy = 0;       // threads using it across a wait: it must stay in the table
  // Standalone synchronization (flush, unlock, PSCW complete) uses this element, so freeing
  // resources never needs a new one (the MPICH "New RMA Design": cleanup must not allocate).
  OpElem sync_op;
  bool sync_busy = false;
  // Small puts, gets and accumulates posted while no operation element waited here: batch records
  // (packet.h, BatchedOp) with their data, ahead of every pending element, for the next
  // request's batch (Window::am_record). They need no element of their own, which was most of
  // what each operation of a message rate cost. They are written behind room for a request
  // header, so that the request that carries them is this buffer itself (take_request): a
  // record's data is copied once at the origin, not twice.
  am::Buffer records;
  std::size_t record_bytes() const {
    return records.empty() ? 0 : records.size() - sizeof(am::Request);
  }
  const char* record_data() const { return records.data() + sizeof(am::Request); }
  uint32_t record_ops = 0;
  uint16_t record_gate = 0;  // the request flags of their epoch (fence, PSCW) and its number
  uint32_t record_epoch = 0;
  std::vector<RecordGet> record_gets;  // the gets among them, in order
  uint64_t record_reply = 0;           // the bytes those return
};

// Whether completing at the target needs a new acknowledgement request.
inline bool needs_ack(const TargetElem* t) {
  return t->pending || (t->unacked && t->sync_sent != t->sent);
}

class OpTable {
 public:
  void init(std::size_t slots, std::size_t op_pool, std::size_t target_pool);
  ~OpTable();

  TargetElem* find(int rank) const;
  // Finds or creates; nullptr if no element is available (caller cleans up and retries),
  // unless `overflow`: then one is allocated beyond the pools (freed when it comes back).
  TargetElem* get(int rank, bool overflow = false);
  void remove(TargetElem* t);

  OpElem* new_op(bool overflow = false);  // nullptr if both pools are empty, unless overflow
  void free_op(OpElem* op);

  void append(TargetElem* t, OpElem* op);
  void prepend(TargetElem* t, OpElem* op);  // an issued op (issued ones come before pending)
  void unlink(TargetElem* t, OpElem* op);   // op must be the head or have no predecessor issues

  // f may remove the element it is given.
  template <class F>
  void for_each_target(F&& f) const {
    for (TargetElem* t = all_; t;) {
      TargetElem* next = t->all_next;
      f(t);
      t = next;
    }
  }
  std::size_t targets() const { return ntargets_; }
  bool empty() const { return ntargets_ == 0; }
  // Read without the window's lock too (the progress engine's hint that it has work here);
  // changed only under the lock.
  std::size_t live_ops() const { return live_ops_.load(std::memory_order_relaxed); }
  // Also counts live operations into `c` (shared by the windows of a communicator).
  void count_into(std::atomic<std::size_t>* c) { shared_live_ = c; }

 private:
  std::vector<TargetElem*> slots_;
  std::size_t mask_ = 0;  // slots_.size() - 1
  TargetElem* all_ = nullptr;
  std::size_t ntargets_ = 0;
  std::atomic<std::size_t> live_ops_{0};
  std::atomic<std::size_t>* shared_live_ = nullptr;
  // Window-local pools; the global ones are shared (see op_table.cc).
  std::vector<OpElem*> op_pool_;
  std::vector<TargetElem*> target_pool_;
  std::size_t op_cap_ = 0, target_cap_ = 0;
};

// Sizes the global pools (once, from the configuration).
void init_global_pools(std::size_t ops, std::size_t targets);

}  // namespace osprey::rma
