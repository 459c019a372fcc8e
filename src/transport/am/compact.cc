#include "transport/am/compact.h"

#include <cstdint>
#include <cstring>

namespace osprey::am {
namespace {

Request expand(const CompactRequest& c) {
  Request r{};
  r.kind = static_cast<Kind>(c.kind & ~kCompactBit);
  r.op = c.op;
  r.flags = c.flags;
  r.repr = c.repr;
  r.credits_back = c.credits_back;
  r.elem_size = c.elem_size;
  r.reply_tag = c.reply_tag;
  r.data_tag = c.reply_tag ? c.reply_tag + 1 : 0;
  r.window = c.window;
  r.where = c.where;
  r.bytes = c.bytes;
  r.epoch = c.epoch;
  r.tcount = c.tcount;
  r.tlb = c.tlb;
  return r;
}

}  // namespace

void compact_request(Buffer& msg) {
  constexpr uint16_t kFollows =
      kSeparateData | kSeparateLayout | kTypeStore | kTypeCached | kBatched;
  const std::size_t data = msg.size() - sizeof(Request);
  // A bare header is inside the host's short messages already: rewriting it only costs.
  if (data == 0 || data > kCompactDataMax) return;
  Request r;
  std::memcpy(&r, msg.data(), sizeof r);
  if (r.flags & kFollows) return;
  if (r.bytes > UINT32_MAX || r.tcount < 0 || r.tcount > UINT32_MAX || r.tlb < INT32_MIN ||
      r.tlb > INT32_MAX)
    return;
  CompactRequest c{};
  c.kind = static_cast<uint8_t>(static_cast<uint8_t>(r.kind) | kCompactBit);
  c.op = r.op;
  c.flags = r.flags;
  c.repr = r.repr;
  c.credits_back = r.credits_back;
  c.elem_size = r.elem_size;
  c.reply_tag = r.reply_tag;
  c.window = r.window;
  c.where = r.where;
  c.bytes = static_cast<uint32_t>(r.bytes);
  c.epoch = r.epoch;
  c.tcount = static_cast<uint32_t>(r.tcount);
  c.tlb = static_cast<int32_t>(r.tlb);
  // Only what the target reads of a dense request without followers may differ (the extent of
  // a dense type is its size; the rest is zero): anything else keeps the full header.
  Request back = expand(c);
  back.textent = r.textent;
  if (std::memcmp(&back, &r, sizeof r) != 0) return;
  std::memcpy(msg.data(), &c, sizeof c);
  std::memmove(msg.data() + sizeof c, msg.data() + sizeof r, data);
  msg.resize(sizeof c + data);
}

bool expand_request(const char* msg, std::size_t n, std::vector<char>& out) {
  if (n < sizeof(CompactRequest)) return false;
  CompactRequest c;
  std::memcpy(&c, msg, sizeof c);
  const Request r = expand(c);
  const std::size_t data = n - sizeof c;
  out.resize(sizeof r + data);
  std::memcpy(out.data(), &r, sizeof r);
  if (data) std::memcpy(out.data() + sizeof r, msg + sizeof c, data);
  return true;
}

}  // namespace osprey::am
