// The short header of small requests (transport/am/compact.h): what a sender shortens expands
// back at the target into the very bytes it started as (but for the extent of its dense target
// type, which a target never reads), and anything the short form cannot carry keeps its full
// header.
#include "transport/am/compact.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "transport/am/request_check.h"

namespace osprey::am {
namespace {

Request small_put(uint64_t bytes) {
  Request r{};
  r.kind = Kind::kPut;
  r.repr = 3;
  r.elem_size = 8;
  r.flags = kFlush | kFenceEpoch | kDynamic;
  r.window = 0x1234'5678'9abc'def0ull;
  r.where = 0xffff'0000'1111'2222ull;
  r.bytes = bytes;
  r.tcount = static_cast<int64_t>(bytes / 8);
  r.textent = 8;
  r.tlb = -16;
  r.reply_tag = kTagSpaceBase + 8;
  r.data_tag = r.reply_tag + 1;
  r.epoch = 77;
  r.credits_back = 5;
  return r;
}

// The message as the target sees it after expansion: a dense target's extent is not sent.
Buffer expected(Request r, std::size_t data);

Buffer message(const Request& r, std::size_t data) {
  Buffer m(sizeof r + data);
  std::memcpy(m.data(), &r, sizeof r);
  for (std::size_t i = 0; i < data; ++i)
    m[sizeof r + i] = static_cast<char>(i * 7 + 1);
  return m;
}

Buffer expected(Request r, std::size_t data) {
  r.textent = 0;
  return message(r, data);
}

TEST(CompactRequest, ShortensAndExpandsBackByteForByte) {
  for (std::size_t data : {8u, 16u, 40u}) {
    const Request r = small_put(data);
    const Buffer full = expected(r, data);
    Buffer m = message(r, data);
    compact_request(m);
    ASSERT_EQ(m.size(), sizeof(CompactRequest) + data);
    ASSERT_TRUE(is_compact(m.data(), m.size()));
    std::vector<char> out;
    ASSERT_TRUE(expand_request(m.data(), m.size(), out));
    ASSERT_EQ(out.size(), full.size());
    EXPECT_EQ(std::memcmp(out.data(), full.data(), full.size()), 0) << data << " bytes";
    EXPECT_EQ(check_request(out.data(), out.size()), 0);
  }
}

TEST(CompactRequest, NoReplyMeansNoDataTag) {
  Request r = small_put(8);
  r.flags = 0;
  r.reply_tag = 0;
  r.data_tag = 0;
  const Buffer full = expected(r, 8);
  Buffer m = message(r, 8);
  compact_request(m);
  ASSERT_TRUE(is_compact(m.data(), m.size()));
  std::vector<char> out;
  ASSERT_TRUE(expand_request(m.data(), m.size(), out));
  EXPECT_EQ(std::memcmp(out.data(), full.data(), full.size()), 0);
}

TEST(CompactRequest, KeepsTheFullHeaderWhenTheShortOneLosesSomething) {
  std::vector<Request> keep;
  Request r = small_put(8);
  r.flags |= kTypeCached;  // a layout slot: not in the short form
  r.type_slot = 3;
  keep.push_back(r);
  r = small_put(8);
  r.data_tag = r.reply_tag + 5;  // a data tag the short form cannot derive
  keep.push_back(r);
  r = small_put(8);
  r.tcount = int64_t{1} << 33;
  keep.push_back(r);
  r = small_put(8);
  r.tlb = int64_t{1} << 40;
  keep.push_back(r);
  r = small_put(8);
  r.batch_reply = 8;  // only with a batch
  keep.push_back(r);
  for (const Request& k : keep) {
    const Buffer full = message(k, 8);
    Buffer m = full;
    compact_request(m);
    ASSERT_EQ(m.size(), full.size());
    EXPECT_EQ(std::memcmp(m.data(), full.data(), full.size()), 0);
    EXPECT_FALSE(is_compact(m.data(), m.size()));
  }
  // Bare headers and large inline data stay as they are.
  for (std::size_t data : {std::size_t{0}, kCompactDataMax + 8}) {
    Buffer m = message(small_put(data), data);
    const std::size_t n = m.size();
    compact_request(m);
    EXPECT_EQ(m.size(), n);
    EXPECT_FALSE(is_compact(m.data(), m.size()));
  }
}

TEST(CompactRequest, TooShortToExpandIsRefused) {
  Buffer m = message(small_put(8), 8);
  compact_request(m);
  std::vector<char> out;
  EXPECT_FALSE(expand_request(m.data(), sizeof(CompactRequest) - 1, out));
  EXPECT_TRUE(expand_request(m.data(), sizeof(CompactRequest), out));
  EXPECT_EQ(out.size(), sizeof(Request));
}

// A damaged short request expands to something the checker judges without reading outside the
// message (the sanitizer builds run this too).
TEST(CompactRequest, DamagedShortRequestsStayInsideTheMessage) {
  std::mt19937 rng(12);
  for (std::size_t data : {8u, 16u, 40u}) {
    Buffer m = message(small_put(data), data);
    compact_request(m);
    ASSERT_TRUE(is_compact(m.data(), m.size()));
    for (int round = 0; round < 2000; ++round) {
      std::vector<char> bad(m.begin(), m.end());
      for (int k = 0; k < 3; ++k)
        bad[rng() % bad.size()] = static_cast<char>(rng());
      bad[0] = static_cast<char>(bad[0] | kCompactBit);
      const std::size_t n = rng() % (bad.size() + 1);
      std::vector<char> out;
      if (!expand_request(bad.data(), n, out)) {
        EXPECT_LT(n, sizeof(CompactRequest));
        continue;
      }
      EXPECT_EQ(out.size(), sizeof(Request) + (n - sizeof(CompactRequest)));
      (void)check_request(out.data(), out.size());
    }
  }
}

}  // namespace
}  // namespace osprey::am
