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
  to.fence_bits = from.fence_bits;
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
  // A request with a layout (named or following) is the one whose target reads its extent.
  if (r.flags & kFollows) return;
  CompactRequest c{};
  copy_shared(c, r);
  c.kind = static_cast<uint8_t>(static_cast<uint8_t>(r.kind) | kCompactBit);
  // The short form must give back the very header (a field too wide for it, a data tag it
  // cannot derive, anything a batch or layout sets: the full header goes), but for the extent
  // of the dense target type, which no request without a layout is read for.
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
