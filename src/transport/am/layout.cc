#include "transport/am/layout.h"

#include <cstring>

#include "transport/am/packet.h"

namespace osprey::am {
namespace {

bool strided(const std::vector<dt::Block>& b) {
  if (b.size() < 2) return false;
  const MPI_Aint stride = b[1].off - b[0].off;
  for (std::size_t i = 1; i < b.size(); ++i)
    if (b[i].len != b[0].len || b[i].off - b[i - 1].off != stride) return false;
  return true;
}

}  // namespace

void encode_layout(const dt::TypeInfo& t, std::vector<char>& out) {
  LayoutHead h{};
  h.count = static_cast<uint32_t>(t.blocks.size());
  const bool regular = strided(t.blocks);
  h.form = regular ? LayoutForm::kStrided : LayoutForm::kList;
  if (!t.blocks.empty()) {
    h.off = t.blocks[0].off;
    h.len = t.blocks[0].len;
    h.stride = regular ? t.blocks[1].off - t.blocks[0].off : 0;
  }
  const std::size_t at = out.size();
  out.resize(at + sizeof h + (regular ? 0 : t.blocks.size() * sizeof(LayoutBlock)));
  std::memcpy(out.data() + at, &h, sizeof h);
  if (regular) return;
  char* p = out.data() + at + sizeof h;
  for (const dt::Block& b : t.blocks) {
    const LayoutBlock w{b.off, b.len};
    std::memcpy(p, &w, sizeof w);
    p += sizeof w;
  }
}

bool decode_layout(const char* p, std::size_t n, uint64_t data_bytes,
                   std::vector<dt::Block>& blocks) {
  LayoutHead h;
  if (n < sizeof h) return false;
  std::memcpy(&h, p, sizeof h);
  blocks.clear();
  if (h.form == LayoutForm::kStrided) {
    if (n != sizeof h || h.count == 0 || h.len <= 0) return false;
    // Every block, the first and the last included, must lie inside the 64-bit offsets.
    const __int128 last = h.off + static_cast<__int128>(h.count - 1) * h.stride;
    const __int128 lowest = last < h.off ? last : h.off, highest = last < h.off ? h.off : last;
    if (static_cast<__int128>(h.count) * h.len > data_bytes || lowest < INT64_MIN ||
        highest + h.len > INT64_MAX)
      return false;
    blocks.reserve(h.count);
    for (uint32_t i = 0; i < h.count; ++i)
      blocks.push_back({h.off + static_cast<MPI_Aint>(i) * h.stride, h.len});
    return true;
  }
  if (h.form != LayoutForm::kList || h.count == 0 ||
      n != sizeof h + static_cast<std::size_t>(h.count) * sizeof(LayoutBlock))
    return false;
  blocks.resize(h.count);
  uint64_t total = 0;
  for (uint32_t i = 0; i < h.count; ++i) {
    LayoutBlock w;
    std::memcpy(&w, p + sizeof h + i * sizeof w, sizeof w);
    int64_t end = 0;
    if (w.len <= 0 || __builtin_add_overflow(w.off, w.len, &end) ||
        __builtin_add_overflow(total, static_cast<uint64_t>(w.len), &total) || total > data_bytes)
      return false;
    blocks[i] = {w.off, w.len};
  }
  return true;
}

}  // namespace osprey::am
