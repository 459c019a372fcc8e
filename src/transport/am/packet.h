// The wire format of osprey's active messages over the host MPI's point-to-point.
//
// Requests travel with tag kRequestTag into a receive slot the target pre-posted (they cost a
// flow-control credit). Replies go to receives the origin pre-posted with a tag it chose, so
// they need no credit and never wait in the host's unexpected queue. A payload too large for a
// slot follows as a separate message with its own tag, received straight into place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace osprey::am {

// Tags on the private communicator (setup traffic uses 1..29999, see rma/agree.h).
constexpr int kRequestTag = 30000;
constexpr int kSystemTag = 30001;
constexpr int kTagSpaceBase = 40000;  // replies and separate payloads: a cycling range
constexpr int kTagSpaceSize = 1 << 20;

enum class Kind : uint8_t {
  kPut = 1,
  kGet,
  kAcc,
  kGetAcc,
  kFop,
  kCas,
  kSync,      // no operation, only flags (a lock, flush or unlock request on its own)
  kComplete,  // end of a PSCW access epoch toward the receiver
  kFence,     // one round of the fence barrier, or (kFenceMark) a fence mark on its own
};

// Whether a request of kind k carries origin data (inline or separate): every kind that writes,
// except get_accumulate and fetch_and_op whose operation is MPI_NO_OP (`no_op`).
constexpr bool carries_payload(Kind k, bool no_op) {
  if (k == Kind::kGetAcc || k == Kind::kFop) return !no_op;
  return k == Kind::kPut || k == Kind::kAcc || k == Kind::kCas;
}

// Flags of a request.
enum : uint16_t {
  kLockShared = 1 << 0,      // take a shared lock before this request (for the whole epoch)
  kLockExclusive = 1 << 1,   // take an exclusive lock before this request
  kUnlock = 1 << 2,          // release the lock after this request, then acknowledge
  kFlush = 1 << 3,           // acknowledge once everything up to this request is done
  kSeparateData = 1 << 4,    // the payload follows on tag data_tag
  kSeparateLayout = 1 << 5,  // the target layout follows on tag data_tag + 1
  kFenceEpoch = 1 << 6,      // apply only once the target reached fence epoch `epoch`
  kPscwEpoch = 1 << 7,       // apply only once the target posted its `epoch`-th post to us
  kDynamic = 1 << 8,         // `where` is an absolute address (dynamic window)
  kNoCheck = 1 << 9,         // lock flags: MPI_MODE_NOCHECK (nothing to take)
  kTypeStore = 1 << 10,      // the target layout follows: keep it in layout slot type_slot
  kTypeCached = 1 << 11,     // the target layout is the one in layout slot type_slot
  kBatched = 1 << 12,        // short operations queued before this one come first (BatchedOp)
  kFenceMark = 1 << 13,      // the sender's last request of fence epoch `epoch` to the receiver
  kBatchPayload = 1 << 14,   // batched puts' data follows on data_tag, ahead of this one's own
  kAloneGets = 1u << 15,     // batched gets of kBatchedGetAlone bytes or more reply alone
};

// Target layouts travel once per window and target: the target keeps them in kLayoutSlots
// slots per origin and window, which the origin fills and reuses in turn, so a derived datatype
// used again costs a slot number, not its block list. Requests of one origin run in order at
// the target, so a slot is only overwritten after every earlier request that named it ran.
constexpr uint32_t kLayoutSlots = 32;

// In Request::fence_bits of a kPscwEpoch request: it also completes the sender's access epoch,
// as a kComplete request after it would (the epoch's last operation carries the complete).
constexpr uint8_t kCompletesEpoch = 1;

struct Request {
  Kind kind;
  uint8_t op;  // dt::Op of accumulate-style requests
  uint16_t flags;
  uint8_t repr;        // dt::Repr of the basic elements
  uint8_t fence_bits;  // kFenceMark: the sender's fence_collective_bits (rma/fence.h);
                       // kPscwEpoch: kCompletesEpoch or 0
  uint8_t pad0[2];
  uint32_t elem_size;     // data bytes of one basic element
  uint32_t batch_reply;   // kBatched: data bytes the batched gets return (sum of their bytes)
  uint64_t window;        // window id
  uint64_t where;         // byte offset from displacement 0, or an address (kDynamic)
  uint64_t bytes;         // data bytes the target side touches
  int64_t tcount;         // target datatype count
  int64_t textent;        // target datatype extent
  int64_t tlb;            // true lower bound of the target datatype (dense layouts)
  uint32_t layout_bytes;  // bytes of the target layout that follow (kTypeStore)
  int32_t reply_tag;      // where the reply goes (0: no reply)
  int32_t data_tag;       // separate payload; its layout on data_tag + 1; reply data on
                          // data_tag + 2 (distinct: origin and target may be one process)
  uint32_t epoch;         // fence or PSCW epoch
  uint16_t credits_back;  // credits the sender returns to the receiver
  uint16_t type_slot;     // layout slot (kTypeStore, kTypeCached)
  uint32_t batch_bytes;   // kBatched: bytes of BatchedOp records right after the header
};
static_assert(sizeof(Request) % 8 == 0 && sizeof(Request) <= 96);
// Whether r completes its sender's PSCW access epoch here (a complete, or the epoch's last
// operation carrying it).
constexpr bool completes_pscw(const Request& r) {
  return r.kind == Kind::kComplete ||
         ((r.flags & (kPscwEpoch | kFenceMark)) == kPscwEpoch && r.fence_bits == kCompletesEpoch);
}

// Requests with a little inline data travel with a shorter header: a put, accumulate,
// fetch_and_op or compare_and_swap of a dense target, with no layout, batch or separate
// payload. MPICH's ch4:ucx sends messages of up to 88 bytes on its inline path and larger ones
// through a copy, which costs 0.17 us more per round trip here; a full header is 88 bytes, so
// it left no room for even an 8-byte put below that (bare headers stay full: they fit). The
// target's endpoint expands it back into a Request before anything else looks at it.
constexpr uint8_t kCompactBit = 0x80;  // in the first byte: a CompactRequest
struct CompactRequest {
  uint8_t kind;  // Kind | kCompactBit
  uint8_t op;
  uint16_t flags;
  uint8_t repr;
  uint8_t fence_bits;
  uint16_t credits_back;
  uint32_t elem_size;
  int32_t reply_tag;  // data_tag is reply_tag + 1 when there is a reply, else 0
  uint64_t window;
  uint64_t where;
  uint32_t bytes;
  uint32_t epoch;
  uint32_t tcount;
  int32_t tlb;
};
static_assert(sizeof(CompactRequest) == 48);
// Inline data beyond this goes with a full header (expanding copies it once more).
constexpr std::size_t kCompactDataMax = 40;

// Short operations ride in front of the request that follows them to the same target (kBatched):
// a put or an accumulate without result, of a dense target, with its data inline, or a get of
// a dense target. Each is a record, followed by its data (puts, accumulates) padded to 8 bytes;
// they run in order, before the carrying request and after its gate (lock, epoch). Puts and
// accumulates answer nothing themselves: an error is told at the next acknowledgement, as for
// any request without reply. The gets' data goes back in the carrier's reply, in record order
// and in front of the carrier's own data (Request::batch_reply bytes; a get that failed
// returns zeros and its error is the reply's status). One request, one credit and one reply
// then serve a whole batch of small operations instead of one each.
// Larger puts of dense data ride by reference (`separate`): their record carries no data, which
// comes in one message on the request's data_tag (kBatchPayload), ahead of the carrier's own
// payload, and the target's host scatters it straight into window memory before the batch
// runs. A batch of them is then one request and one data message instead of a request and a
// data message each.
struct BatchedOp {
  Kind kind;  // kPut, kAcc or kGet
  uint8_t op;
  uint8_t repr;
  uint8_t dynamic;     // `where` is an absolute address
  uint32_t elem_size;  // data bytes of one basic element
  uint64_t where;      // of the first data byte (the target type's lower bound included)
  uint32_t bytes;      // data bytes that follow the record (a get: that it reads)
  uint32_t separate;   // a put whose data is in the batch payload, not after the record
};
static_assert(sizeof(BatchedOp) == 24);
// The bytes of a record of kind k with `data` bytes (no wrap for any `data`).
constexpr uint64_t batched_record_bytes(Kind k, uint32_t data, bool separate = false) {
  return sizeof(BatchedOp) + (k == Kind::kGet || separate ? 0 : (uint64_t{data} + 7u) / 8u * 8u);
}
// Puts and accumulates up to this size may be batched (larger ones are cheaper sent on their
// own: the batch copies their data twice more). Gets up to kBatchedGetMax, as long as the
// reply of one batch stays within kBatchReplyMax.
constexpr uint32_t kBatchedOpMax = 1024;
constexpr uint32_t kBatchedGetMax = 1024 * 1024;
constexpr uint32_t kBatchReplyMax = 4 * 1024 * 1024;
// Toward a target on another node (kAloneGets), a batched get of at least this many bytes
// returns its data in a message of its own, after the reply and in record order (on the reply
// data tag, ahead of the carrier's own data): contiguous at the sender, which a network
// transport sends far faster than a gathered message (TCP here: 1.3 against 5.4 GB/s at
// 1 MiB); between processes of one node the host's shared memory moves one gathered message
// faster than several (0.7-0.9 of it alone at 64 KiB-1 MiB). Smaller ones are copied into the
// reply (direct_reply): over loopback TCP, 64 KiB gets + flush ran 1.2-2x as fast copied as
// alone, 128 KiB 0.5-0.8x.
constexpr uint32_t kBatchedGetAlone = 128 * 1024;
constexpr bool alone(uint16_t request_flags, uint32_t get_bytes) {
  return (request_flags & kAloneGets) && get_bytes >= kBatchedGetAlone;
}
// Puts of dense data larger than kBatchedOpMax, up to this size, ride by reference, as long
// as the batch payload stays within kBatchPayloadMax.
constexpr uint32_t kBatchedPutMax = 1024 * 1024;
constexpr uint32_t kBatchPayloadMax = 4 * 1024 * 1024;
// Replies with at most this much data are received into a receive posted after the request
// went (am_origin.cc, am_send); longer ones into one posted before.
constexpr uint64_t kLateReplyMax = 256;
// Whether the `bytes` that `gets` batched gets return are gathered by the host straight from
// window memory and scattered straight into the origin's buffers (a host datatype over the
// pieces on each side), rather than copied into the reply and out of it: for large batches of
// pieces of 1 KiB or more (small pieces cost the host more per byte than a copy), between
// processes of one node. A network transport sends and receives a gathered message far slower
// than a copy and a contiguous one (loopback TCP: 8-32 KiB gets + flush or fence 1.1-1.5x
// with the origin's copy, 2-3.7x with the target's, against gathered both ways). Each side
// decides for itself: the bytes on the wire are the same.
constexpr bool direct_reply(uint64_t bytes, uint64_t gets, bool node_peer) {
  return node_peer && bytes >= 16 * 1024 && bytes >= gets * 1024;
}

// A target layout on the wire: one element's data blocks as the origin decoded them (its
// description, not its runs): one strided record (a vector, a 2-D subarray, ...), a list of
// plain blocks, or a list of strided blocks (datatype/type_info.h, Block).
enum class LayoutForm : uint32_t { kList = 0, kStrided = 1, kBlocks = 2 };
struct LayoutHead {
  LayoutForm form;
  uint32_t count;  // kStrided: runs; else records that follow
  int64_t off;     // kStrided: the first run's offset
  int64_t len;     // kStrided: every run's length
  int64_t stride;  // kStrided: from one run's start to the next
};
struct LayoutBlock {  // kList: `count` of these follow the head
  int64_t off;
  int64_t len;
};
struct LayoutStrided {  // kBlocks: `count` of these follow the head
  int64_t off, len;
  int64_t n1, s1;  // inner repetition: runs and their stride
  int64_t n2, s2;  // outer repetition
};

// A reply: an acknowledgement, possibly with data (inline if small).
// The status is the first error since the origin's last acknowledgement, perhaps of an earlier
// operation: whether this one's own data comes (inline or separately) is told apart.
struct Reply {
  int32_t status;  // MPI error class (0: success)
  uint16_t credits_back;
  uint16_t flags;
  uint64_t bytes;  // inline data bytes that follow
};
static_assert(sizeof(Reply) == 16);
enum : uint16_t {
  kReplyData = 1 << 0,  // the operation succeeded: its data comes
  kAloneData = 1 << 1,  // the batched gets' messages of their own come (kBatchedGetAlone)
};

// System messages (credits): tag kSystemTag, outside the credit scheme. Requests and
// revocations are one in flight per direction and peer.
enum class SysKind : uint8_t {
  kCreditRequest = 1,  // borrower -> lender: stalled, wants `extra` more
  kCreditGrant,        // lender -> borrower: `extra` more loaned, `returned` used ones back
  kCreditReturn,       // lender -> borrower: `returned` used credits back
  kCreditRevoke,       // lender -> borrower: give back what you do not use
  kCreditSurrender,    // borrower -> lender: `extra` loaned credits given back
};
struct System {
  SysKind kind;
  uint8_t pad;
  uint16_t extra;
  uint16_t returned;
  uint16_t pad2;
};

}  // namespace osprey::am
