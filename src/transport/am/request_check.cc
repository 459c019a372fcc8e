#include "transport/am/request_check.h"

#include <mpi.h>

#include <cstdint>
#include <cstring>

#include "datatype/basic.h"
#include "datatype/ops.h"

namespace osprey::am {
namespace {

constexpr uint16_t kKnownFlags = kLockShared | kLockExclusive | kUnlock | kFlush | kSeparateData |
                                 kSeparateLayout | kFenceEpoch | kPscwEpoch | kDynamic | kNoCheck |
                                 kTypeStore | kTypeCached | kBatched | kFenceMark | kBatchPayload |
                                 kAloneGets;

bool in_tag_range(int tag, int span) {
  return tag >= kTagSpaceBase && tag <= kTagSpaceBase + kTagSpaceSize - 1 + span;
}

bool combines(Kind k) {
  return k == Kind::kAcc || k == Kind::kGetAcc || k == Kind::kFop || k == Kind::kCas;
}

// The records of a batch fill exactly `bytes`, each is a put, accumulate or get that can run,
// the gets read `*gets` bytes in all and the puts by reference take `*separate` bytes of the
// batch payload.
int check_batch(const char* p, uint64_t bytes, uint16_t flags, uint64_t* gets, uint64_t* separate,
                uint64_t* alone_gets) {
  uint64_t at = 0;
  *gets = 0;
  *separate = 0;
  *alone_gets = 0;
  while (at < bytes) {
    if (bytes - at < sizeof(BatchedOp)) return MPI_ERR_TRUNCATE;
    BatchedOp b;
    std::memcpy(&b, p + at, sizeof b);
    if (b.kind != Kind::kPut && b.kind != Kind::kAcc && b.kind != Kind::kGet) return MPI_ERR_INTERN;
    if (b.repr > static_cast<uint8_t>(dt::Repr::kBytes) || b.dynamic > 1) return MPI_ERR_INTERN;
    if (b.separate > 1 || (b.separate && b.kind != Kind::kPut)) return MPI_ERR_INTERN;
    if (b.separate) {
      // The target scatters the batch payload into window memory, discarding what falls out
      // of range through a buffer of kBatchedPutMax bytes.
      if (b.bytes > kBatchedPutMax) return MPI_ERR_INTERN;
      *separate += b.bytes;
      if (*separate > kBatchPayloadMax) return MPI_ERR_INTERN;
    }
    if (b.kind == Kind::kAcc) {
      if (b.op >= static_cast<uint8_t>(dt::Op::kInvalid)) return MPI_ERR_OP;
      if (b.elem_size == 0 || b.bytes % b.elem_size != 0) return MPI_ERR_TYPE;
    }
    if (b.kind == Kind::kGet) {
      // The target serves a get out of range from a buffer of kBatchedGetMax zeros, and holds
      // the batch's reply in memory.
      if (b.bytes > kBatchedGetMax) return MPI_ERR_INTERN;
      if (alone(flags, b.bytes)) ++*alone_gets;
      *gets += b.bytes;
      if (*gets > kBatchReplyMax) return MPI_ERR_INTERN;
    }
    const uint64_t rec = batched_record_bytes(b.kind, b.bytes, b.separate);
    if (rec > bytes - at) return MPI_ERR_TRUNCATE;
    at += rec;
  }
  return 0;
}

}  // namespace

bool reply_tag_ok(int tag) {
  return tag == 0 || in_tag_range(tag, 0);
}

int check_request(const char* msg, std::size_t n) {
  if (n < sizeof(Request)) return MPI_ERR_TRUNCATE;
  Request r;
  std::memcpy(&r, msg, sizeof r);  // the slot may not be aligned for a peer's layout
  if (r.kind < Kind::kPut || r.kind > Kind::kFence) return MPI_ERR_INTERN;
  if (r.flags & ~kKnownFlags) return MPI_ERR_INTERN;
  if (!reply_tag_ok(r.reply_tag)) return MPI_ERR_TAG;
  if ((r.flags & (kSeparateData | kSeparateLayout)) && !in_tag_range(r.data_tag, 3))
    return MPI_ERR_TAG;
  if (r.flags & kBatched) {
    if (r.kind == Kind::kFence) return MPI_ERR_INTERN;
    if (r.batch_bytes > n - sizeof(Request)) return MPI_ERR_TRUNCATE;
    uint64_t gets = 0, separate = 0, alone_gets = 0;
    if (const int cls = check_batch(msg + sizeof(Request), r.batch_bytes, r.flags, &gets, &separate,
                                    &alone_gets))
      return cls;
    // Gets whose data goes alone go on data_tag + 2.
    if (alone_gets && !in_tag_range(r.data_tag, 3)) return MPI_ERR_TAG;
    // The gets' data goes back in the reply: there must be one, announced at its size.
    if (gets != r.batch_reply || (gets && !r.reply_tag)) return MPI_ERR_INTERN;
    // Puts by reference and a batch payload come together.
    if ((separate != 0) != ((r.flags & kBatchPayload) != 0)) return MPI_ERR_INTERN;
    if (separate && !in_tag_range(r.data_tag, 3)) return MPI_ERR_TAG;
  } else if (r.batch_bytes || r.batch_reply || (r.flags & (kBatchPayload | kAloneGets))) {
    return MPI_ERR_INTERN;
  }
  if (r.kind == Kind::kFence || r.kind == Kind::kSync || r.kind == Kind::kComplete) return 0;
  if (r.tcount < 0) return MPI_ERR_COUNT;
  if (r.repr > static_cast<uint8_t>(dt::Repr::kBytes)) return MPI_ERR_TYPE;
  if (combines(r.kind)) {
    if (r.op >= static_cast<uint8_t>(dt::Op::kInvalid)) return MPI_ERR_OP;
    if (r.bytes && (r.elem_size == 0 || r.bytes % r.elem_size != 0)) return MPI_ERR_TYPE;
  }
  const bool store = r.flags & kTypeStore, cached = r.flags & kTypeCached;
  if (store && cached) return MPI_ERR_INTERN;
  if ((store || cached) && r.type_slot >= kLayoutSlots) return MPI_ERR_INTERN;
  if ((r.flags & kSeparateLayout) && !store) return MPI_ERR_INTERN;
  // What follows the header, in order: batched operations, an inline layout, a compare
  // operand, an inline payload.
  uint64_t need = r.batch_bytes;
  if (store && !(r.flags & kSeparateLayout)) need += r.layout_bytes;
  if (r.kind == Kind::kCas) need += r.elem_size;
  if (carries_payload(r.kind, r.op == static_cast<uint8_t>(dt::Op::kNoOp)) &&
      !(r.flags & kSeparateData) && __builtin_add_overflow(need, r.bytes, &need))
    return MPI_ERR_TRUNCATE;
  if (need > n - sizeof(Request)) return MPI_ERR_TRUNCATE;
  // A separate payload's first bytes may ride in the request (toward another node), never all.
  if ((r.flags & kSeparateData) && n - sizeof(Request) - need >= r.bytes) return MPI_ERR_TRUNCATE;
  return 0;
}

}  // namespace osprey::am
