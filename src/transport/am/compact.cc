#include "transport/am/compact.h"

#include <cstdint>
#include <cstring>

namespace osprey::am {
namespace {

// The fields both forms carry, from one to the other (the short one's narrower fields are
// checked before they are filled).
template <class To, class From>
void copy_shared(To& to, const From& from) {
  to.op = from.op;
  to.flags = from.flags;
  to.repr = from.repr;
  to.credits_back = from.credits_back;
  to.elem_size = from.elem_size;
  to.reply_tag = from.reply_tag;
  to.window = from.window;
  to.where = from.where;
  to.bytes = static_cast<decltype(to.bytes)>(from.bytes);
  to.epoch = from.epoch;
  to.tcount = static_cast<decltype(to.tcount)>(from.tcount);
  to.tlb = static_cast<decltype(to.tlb)>(from.tlb);
}

Request expand(const CompactRequest& c) {
  Request r{};
  copy_shared(r, c);
  r.kind = static_cast<Kind>(c.kind & ~kCompactBit);
  r.data_tag = c.reply_tag ? c.reply_tag + 1 : 0;
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
  copy_shared(c, r);
  c.kind = static_cast<uint8_t>(static_cast<uint8_t>(r.kind) | kCompactBit);
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
