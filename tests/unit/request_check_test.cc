// A target's first look at an arriving request (transport/am/request_check.h): well-formed
// requests of every kind pass, each kind of damage is refused with its class, and mutated and
// truncated packets never make the checker or the layout decoder read outside the message (the
// sanitizer builds run this too).
#include "transport/am/request_check.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "datatype/basic.h"
#include "datatype/ops.h"
#include "transport/am/layout.h"

namespace osprey::am {
namespace {

constexpr int kTag = kTagSpaceBase + 4;

// A request with its inline parts: layout (if any), compare operand (CAS), payload.
std::vector<char> packet(Request r, const std::vector<char>& layout = {}) {
  std::vector<char> m(sizeof r);
  r.layout_bytes = static_cast<uint32_t>(layout.size());
  std::memcpy(m.data(), &r, sizeof r);
  if (!layout.empty()) {
    m.resize(sizeof r + layout.size());
    std::memcpy(m.data() + sizeof r, layout.data(), layout.size());
  }
  if (r.kind == Kind::kCas) m.resize(m.size() + r.elem_size, 'c');
  const bool fetch_only = (r.kind == Kind::kFop || r.kind == Kind::kGetAcc) &&
                          r.op == static_cast<uint8_t>(dt::Op::kNoOp);
  if (r.kind != Kind::kGet && r.kind != Kind::kSync && r.kind != Kind::kComplete &&
      r.kind != Kind::kFence && !fetch_only && !(r.flags & kSeparateData))
    m.resize(m.size() + r.bytes, 'd');
  return m;
}

Request base(Kind k, uint64_t bytes) {
  Request r{};
  r.kind = k;
  r.op = static_cast<uint8_t>(dt::Op::kSum);
  r.repr = static_cast<uint8_t>(dt::Repr::kI64);
  r.elem_size = 8;
  r.bytes = bytes;
  r.tcount = static_cast<int64_t>(bytes / 8);
  r.reply_tag = kTag;
  r.data_tag = kTag + 1;
  return r;
}

std::vector<char> strided_layout() {
  dt::TypeInfo t;
  for (int i = 0; i < 4; ++i)
    t.blocks.push_back({i * 32, 8});
  std::vector<char> wire;
  encode_layout(t, wire);
  return wire;
}

// Batched records (packet.h): a put of `put_bytes` (by reference if `separate`), a get of
// `get_bytes` if any, and an accumulate of two int64.
std::vector<char> batch_records(uint32_t put_bytes = 8, uint32_t get_bytes = 0,
                                bool separate = false) {
  std::vector<char> b;
  auto add = [&](Kind k, uint32_t n) {
    BatchedOp rec{};
    rec.kind = k;
    rec.op = static_cast<uint8_t>(dt::Op::kSum);
    rec.repr = static_cast<uint8_t>(dt::Repr::kI64);
    rec.elem_size = 8;
    rec.where = 64;
    rec.bytes = n;
    rec.separate = separate && k == Kind::kPut;
    const std::size_t at = b.size();
    b.resize(at + batched_record_bytes(k, n, rec.separate), 'b');
    std::memcpy(b.data() + at, &rec, sizeof rec);
  };
  add(Kind::kPut, put_bytes);
  if (get_bytes) add(Kind::kGet, get_bytes);
  add(Kind::kAcc, 16);
  return b;
}

// The same request carrying `batch` in front of its own parts (and the room in its reply for
// the batched gets' data).
std::vector<char> with_batch(const std::vector<char>& m, const std::vector<char>& batch) {
  Request r;
  std::memcpy(&r, m.data(), sizeof r);
  r.flags |= kBatched;
  r.batch_bytes = static_cast<uint32_t>(batch.size());
  r.batch_reply = 0;
  for (std::size_t at = 0; at < batch.size();) {
    BatchedOp rec;
    std::memcpy(&rec, batch.data() + at, sizeof rec);
    if (rec.kind == Kind::kGet) r.batch_reply += rec.bytes;
    if (rec.separate) r.flags |= kBatchPayload;
    at += batched_record_bytes(rec.kind, rec.bytes, rec.separate);
  }
  // Sized once and filled in place: g++ 12 at -O3 mistakes inserts into a vector this short
  // for writes past its end (-Warray-bounds).
  std::vector<char> out(m.size() + batch.size());
  std::memcpy(out.data(), &r, sizeof r);
  std::copy(batch.begin(), batch.end(), out.begin() + sizeof r);
  std::copy(m.begin() + sizeof r, m.end(),
            out.begin() + static_cast<long>(sizeof r + batch.size()));
  return out;
}

std::vector<std::vector<char>> valid_packets() {
  std::vector<std::vector<char>> v;
  for (Kind k : {Kind::kPut, Kind::kGet, Kind::kAcc, Kind::kGetAcc})
    v.push_back(packet(base(k, 64)));
  v.push_back(packet(base(Kind::kFop, 8)));
  v.push_back(packet(base(Kind::kCas, 8)));
  Request noop = base(Kind::kGetAcc, 32);
  noop.op = static_cast<uint8_t>(dt::Op::kNoOp);
  v.push_back(packet(noop));
  Request stored = base(Kind::kPut, 32);
  stored.flags = kTypeStore;
  stored.type_slot = 3;
  v.push_back(packet(stored, strided_layout()));
  Request separate = base(Kind::kAcc, 1 << 20);
  separate.flags = kSeparateData | kLockExclusive | kUnlock;
  separate.data_tag = kTag + 1;
  v.push_back(packet(separate));
  std::vector<char> with_head = packet(separate);  // its first bytes in the request
  with_head.resize(with_head.size() + 5000, 'h');
  v.push_back(with_head);
  for (Kind k : {Kind::kSync, Kind::kComplete, Kind::kFence}) {
    Request s{};
    s.kind = k;
    v.push_back(packet(s));
  }
  v.push_back(with_batch(packet(base(Kind::kPut, 64)), batch_records(3)));
  v.push_back(with_batch(packet(base(Kind::kFop, 8)), batch_records()));
  v.push_back(with_batch(packet(stored, strided_layout()), batch_records(256)));
  Request sync{};
  sync.kind = Kind::kSync;
  sync.flags = kFlush;
  sync.reply_tag = kTag;
  v.push_back(with_batch(packet(sync), batch_records()));
  v.push_back(with_batch(packet(sync), batch_records(16, 40)));
  v.push_back(with_batch(packet(base(Kind::kGet, 64)), batch_records(8, 4096)));
  return v;
}

int check(const std::vector<char>& m) {
  return check_request(m.data(), m.size());
}

// check() of a batch whose request and first record `change(Request&, BatchedOp&)` altered.
template <typename Change>
int check_mutated(const std::vector<char>& good, Change&& change) {
  std::vector<char> m = good;
  Request r;
  std::memcpy(&r, m.data(), sizeof r);
  BatchedOp first;
  std::memcpy(&first, m.data() + sizeof r, sizeof first);
  change(r, first);
  std::memcpy(m.data(), &r, sizeof r);
  std::memcpy(m.data() + sizeof r, &first, sizeof first);
  return check(m);
}

TEST(RequestCheck, WellFormedRequestsPass) {
  for (const auto& m : valid_packets())
    EXPECT_EQ(check(m), 0) << "kind " << static_cast<int>(m[0]);
}

TEST(RequestCheck, EachKindOfDamageIsRefused) {
  const std::vector<char> put = packet(base(Kind::kPut, 64));
  EXPECT_EQ(check_request(put.data(), sizeof(Request) - 1), MPI_ERR_TRUNCATE);
  EXPECT_EQ(check_request(put.data(), put.size() - 1), MPI_ERR_TRUNCATE);  // payload cut short
  auto with = [](Request r) { return check(packet(r)); };
  Request r = base(Kind::kPut, 64);
  r.kind = static_cast<Kind>(0);
  EXPECT_EQ(with(r), MPI_ERR_INTERN);
  r.kind = static_cast<Kind>(10);
  EXPECT_EQ(with(r), MPI_ERR_INTERN);
  r = base(Kind::kPut, 64);
  r.flags = kAloneGets;  // every flag is known: this one only goes with a batch
  EXPECT_EQ(with(r), MPI_ERR_INTERN);
  r.flags = kBatchPayload;
  EXPECT_EQ(with(r), MPI_ERR_INTERN);
  r = base(Kind::kAcc, 64);
  r.op = static_cast<uint8_t>(dt::Op::kInvalid);
  EXPECT_EQ(with(r), MPI_ERR_OP);
  r = base(Kind::kAcc, 63);
  EXPECT_EQ(with(r), MPI_ERR_TYPE);  // not a whole number of elements
  r = base(Kind::kAcc, 64);
  r.repr = 200;
  EXPECT_EQ(with(r), MPI_ERR_TYPE);
  r = base(Kind::kPut, 64);
  r.tcount = -1;
  EXPECT_EQ(with(r), MPI_ERR_COUNT);
  r = base(Kind::kPut, 64);
  r.reply_tag = 7;
  EXPECT_EQ(with(r), MPI_ERR_TAG);
  r = base(Kind::kPut, 64);
  r.flags = kSeparateData;
  r.data_tag = -5;
  EXPECT_EQ(with(r), MPI_ERR_TAG);
  r = base(Kind::kPut, 64);
  r.flags = kSeparateData;
  std::vector<char> whole = packet(r);  // a separate payload's head is never all of it
  whole.resize(whole.size() + 64, 'h');
  EXPECT_EQ(check(whole), MPI_ERR_TRUNCATE);
  whole.resize(whole.size() - 1);
  EXPECT_EQ(check(whole), 0);
  r = base(Kind::kPut, 64);
  r.flags = kTypeStore | kTypeCached;
  EXPECT_EQ(check(packet(r, strided_layout())), MPI_ERR_INTERN);
  r.flags = kTypeCached;
  r.type_slot = kLayoutSlots;
  EXPECT_EQ(with(r), MPI_ERR_INTERN);
  // Sizes that wrap around when added up must not pass as small.
  std::vector<char> m = packet(base(Kind::kPut, 0));
  Request huge = base(Kind::kPut, UINT64_MAX - 7);
  std::memcpy(m.data(), &huge, sizeof huge);
  EXPECT_EQ(check(m), MPI_ERR_TRUNCATE);
  Request lay = base(Kind::kPut, 32);
  lay.flags = kTypeStore;
  std::vector<char> m2 = packet(lay, strided_layout());
  lay.layout_bytes = UINT32_MAX;
  std::memcpy(m2.data(), &lay, sizeof lay);
  EXPECT_EQ(check(m2), MPI_ERR_TRUNCATE);
}

TEST(RequestCheck, DamagedBatchesAreRefused) {
  const std::vector<char> put = packet(base(Kind::kPut, 64));
  const std::vector<char> good = with_batch(put, batch_records());
  ASSERT_EQ(check(good), 0);
  auto mutate = [&](auto&& change) { return check_mutated(good, change); };
  // The records must fill batch_bytes exactly and lie inside the message.
  EXPECT_EQ(mutate([](Request& r, BatchedOp&) { r.batch_bytes -= 8; }), MPI_ERR_TRUNCATE);
  EXPECT_EQ(mutate([](Request& r, BatchedOp&) { r.batch_bytes = 1u << 30; }), MPI_ERR_TRUNCATE);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.bytes = 1u << 30; }), MPI_ERR_TRUNCATE);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.bytes = UINT32_MAX; }), MPI_ERR_TRUNCATE);
  // Only puts, accumulates and gets, with a valid operation and whole elements.
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.kind = Kind::kFop; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.kind = Kind::kCas; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.repr = 200; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) {
              b.kind = Kind::kAcc;
              b.op = static_cast<uint8_t>(dt::Op::kInvalid);
            }),
            MPI_ERR_OP);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) {
              b.kind = Kind::kAcc;
              b.elem_size = 3;
            }),
            MPI_ERR_TYPE);
  // Records without the flag, or a batch on a fence signal.
  EXPECT_EQ(mutate([](Request& r, BatchedOp&) { r.flags &= ~kBatched; }), MPI_ERR_INTERN);
  Request fence{};
  fence.kind = Kind::kFence;
  EXPECT_EQ(check(with_batch(packet(fence), batch_records())), MPI_ERR_INTERN);
}

TEST(RequestCheck, BatchedGetsNeedTheirReply) {
  const std::vector<char> good = with_batch(packet(base(Kind::kPut, 64)), batch_records(8, 40));
  ASSERT_EQ(check(good), 0);
  auto mutate = [&](auto&& change) {
    std::vector<char> m = good;
    Request r;
    std::memcpy(&r, m.data(), sizeof r);
    change(r);
    std::memcpy(m.data(), &r, sizeof r);
    return check(m);
  };
  // The reply must be announced at exactly the gets' size, and there must be one.
  EXPECT_EQ(mutate([](Request& r) { r.batch_reply -= 1; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request& r) { r.batch_reply += 8; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request& r) { r.batch_reply = 0; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request& r) { r.reply_tag = 0; }), MPI_ERR_INTERN);
  // A get larger than a batch takes, or gets whose reply exceeds a batch's (the target
  // serves a refused get from a buffer of that size, and holds the whole reply).
  EXPECT_EQ(check(with_batch(packet(base(Kind::kPut, 64)), batch_records(8, kBatchedGetMax))), 0);
  EXPECT_EQ(check(with_batch(packet(base(Kind::kPut, 64)), batch_records(8, kBatchedGetMax + 1))),
            MPI_ERR_INTERN);
  std::vector<char> many;
  for (uint32_t sum = 0; sum <= kBatchReplyMax; sum += kBatchedGetMax) {
    const std::vector<char> one = batch_records(8, kBatchedGetMax);
    many.insert(many.end(), one.begin(), one.end());
  }
  EXPECT_EQ(check(with_batch(packet(base(Kind::kPut, 64)), many)), MPI_ERR_INTERN);
  // Room in a reply without a batch.
  Request plain = base(Kind::kGet, 64);
  plain.batch_reply = 8;
  EXPECT_EQ(check(packet(plain)), MPI_ERR_INTERN);
  // A get whose data comes alone goes on data_tag + 2, which must be in the tag space; without
  // kAloneGets, or smaller, its data is in the reply.
  Request lone = base(Kind::kPut, 64);
  lone.flags = kAloneGets;
  std::vector<char> alone = with_batch(packet(lone), batch_records(8, kBatchedGetAlone));
  ASSERT_EQ(check(alone), 0);
  Request r;
  std::memcpy(&r, alone.data(), sizeof r);
  r.data_tag = 0;
  std::memcpy(alone.data(), &r, sizeof r);
  EXPECT_EQ(check(alone), MPI_ERR_TAG);
  r.flags = static_cast<uint16_t>(r.flags & ~kAloneGets);
  std::memcpy(alone.data(), &r, sizeof r);
  EXPECT_EQ(check(alone), 0);
  lone.data_tag = 0;
  EXPECT_EQ(check(with_batch(packet(lone), batch_records(8, kBatchedGetAlone - 1))), 0);
}

TEST(RequestCheck, PutsByReferenceComeWithTheirPayload) {
  const std::vector<char> good =
      with_batch(packet(base(Kind::kPut, 64)), batch_records(kBatchedPutMax, 0, true));
  ASSERT_EQ(check(good), 0);
  auto mutate = [&](auto&& change) { return check_mutated(good, change); };
  // The flag and the records by reference come together, on a data tag in the tag space.
  EXPECT_EQ(mutate([](Request& r, BatchedOp&) { r.flags &= ~kBatchPayload; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request& r, BatchedOp&) { r.data_tag = 0; }), MPI_ERR_TAG);
  // Only puts ride by reference, at most kBatchedPutMax bytes each.
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.kind = Kind::kAcc; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.separate = 2; }), MPI_ERR_INTERN);
  EXPECT_EQ(mutate([](Request&, BatchedOp& b) { b.bytes = kBatchedPutMax + 1; }), MPI_ERR_INTERN);
  // A batch payload without puts by reference.
  std::vector<char> none = with_batch(packet(base(Kind::kPut, 64)), batch_records(8));
  Request r;
  std::memcpy(&r, none.data(), sizeof r);
  r.flags |= kBatchPayload;
  std::memcpy(none.data(), &r, sizeof r);
  EXPECT_EQ(check(none), MPI_ERR_INTERN);
  // At most kBatchPayloadMax bytes by reference in one batch.
  std::vector<char> many;
  for (uint32_t sum = 0; sum <= kBatchPayloadMax; sum += kBatchedPutMax) {
    const std::vector<char> one = batch_records(kBatchedPutMax, 0, true);
    many.insert(many.end(), one.begin(), one.end());
  }
  EXPECT_EQ(check(with_batch(packet(base(Kind::kPut, 64)), many)), MPI_ERR_INTERN);
}

// What an accepted request promises the target: every inline part lies inside the message.
void expect_parts_inside(const std::vector<char>& m) {
  Request r;
  std::memcpy(&r, m.data(), sizeof r);
  std::size_t at = sizeof r;
  if (r.flags & kBatched) {
    ASSERT_LE(r.batch_bytes, m.size() - at);
    for (std::size_t b = 0; b < r.batch_bytes;) {
      ASSERT_LE(sizeof(BatchedOp), r.batch_bytes - b);
      BatchedOp rec;
      std::memcpy(&rec, m.data() + at + b, sizeof rec);
      ASSERT_LE(batched_record_bytes(rec.kind, rec.bytes, rec.separate), r.batch_bytes - b);
      b += batched_record_bytes(rec.kind, rec.bytes, rec.separate);
    }
    at += r.batch_bytes;
  }
  if (r.kind == Kind::kFence || r.kind == Kind::kSync || r.kind == Kind::kComplete) return;
  if ((r.flags & kTypeStore) && !(r.flags & kSeparateLayout)) {
    ASSERT_LE(r.layout_bytes, m.size() - at);
    std::vector<dt::Block> blocks;
    decode_layout(m.data() + at, r.layout_bytes, r.bytes, blocks);  // may refuse, not overrun
    at += r.layout_bytes;
  }
  if (r.kind == Kind::kCas) {
    ASSERT_LE(r.elem_size, m.size() - at);
    at += r.elem_size;
  }
  const bool fetch_only = (r.kind == Kind::kFop || r.kind == Kind::kGetAcc) &&
                          r.op == static_cast<uint8_t>(dt::Op::kNoOp);
  if (r.kind != Kind::kGet && !fetch_only && !(r.flags & kSeparateData)) {
    ASSERT_LE(r.bytes, m.size() - at);
  }
}

TEST(RequestCheck, MutatedPacketsNeverReadOutside) {
  std::mt19937_64 rng(20261123);
  const auto valid = valid_packets();
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    std::vector<char> m = valid[rng() % valid.size()];
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      m[rng() % m.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) m.resize(rng() % (m.size() + 1));
    // Copy into a buffer of exactly the message's size, so that the sanitizer sees any read
    // past its end.
    std::vector<char> exact(m.begin(), m.end());
    const int cls = check_request(exact.data(), exact.size());
    if (cls == 0) {
      ++accepted;
      expect_parts_inside(exact);
    }
  }
  EXPECT_GT(accepted, 0);  // mutations of fields the checker does not judge still pass
}

TEST(RequestCheck, MutatedLayoutsDecodeOrAreRefused) {
  std::mt19937_64 rng(7);
  const std::vector<char> wire = strided_layout();
  std::vector<dt::Block> list_blocks = {{0, 4}, {8, 4}, {24, 12}};
  dt::TypeInfo t;
  t.blocks = list_blocks;
  std::vector<char> list;
  encode_layout(t, list);
  t.blocks = {{0, 4, 3, 8, 2, 64}, {200, 8}};
  std::vector<char> strided_blocks;
  encode_layout(t, strided_blocks);
  const std::vector<char>* forms[] = {&wire, &list, &strided_blocks};
  for (int i = 0; i < 100000; ++i) {
    std::vector<char> m = *forms[rng() % 3];
    m[rng() % m.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) m.resize(rng() % (m.size() + 1));
    std::vector<char> exact(m.begin(), m.end());
    std::vector<dt::Block> blocks;
    if (decode_layout(exact.data(), exact.size(), 1 << 16, blocks)) {
      uint64_t total = 0;
      for (const dt::Block& b : blocks) {
        EXPECT_GT(b.len, 0);
        EXPECT_GT(b.n1, 0);
        EXPECT_GT(b.n2, 0);
        total += static_cast<uint64_t>(b.bytes());
      }
      EXPECT_LE(total, 1u << 16);
    }
  }
}

}  // namespace
}  // namespace osprey::am
