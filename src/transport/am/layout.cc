#include "transport/am/layout.h"

#include <cstring>

#include "transport/am/packet.h"

namespace osprey::am {
namespace {

// A list of plain blocks of one length at one stride (the decoder folds such lists already;
// a layout built by hand may still be one).
bool regular(const std::vector<dt::Block>& b) {
  if (b.size() < 2) return false;
  const MPI_Aint stride = b[1].off - b[0].off;
  for (std::size_t i = 1; i < b.size(); ++i)
    if (!b[i].plain() || b[i].len != b[0].len || b[i].off - b[i - 1].off != stride) return false;
  return b[0].plain();
}

template <class Rec>
void put_records(const std::vector<dt::Block>& blocks, std::vector<char>& out, std::size_t at,
                 Rec (*wire)(const dt::Block&)) {
  char* p = out.data() + at;
  for (const dt::Block& b : blocks) {
    const Rec w = wire(b);
    std::memcpy(p, &w, sizeof w);
    p += sizeof w;
  }
}

// Whether a strided block of one element may stand: runs of data whose extremes are 64-bit
// offsets, adding its bytes to *total without passing `data_bytes`.
bool sane(const dt::Block& b, uint64_t data_bytes, uint64_t* total) {
  if (b.len <= 0 || b.n1 <= 0 || b.n2 <= 0) return false;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(b.len), static_cast<uint64_t>(b.n1), &bytes) ||
      __builtin_mul_overflow(bytes, static_cast<uint64_t>(b.n2), &bytes) ||
      __builtin_add_overflow(*total, bytes, total) || *total > data_bytes)
    return false;
  // Every run, the first and the last included, must lie inside the 64-bit offsets.
  const __int128 r1 = static_cast<__int128>(b.n1 - 1) * b.s1;
  const __int128 r2 = static_cast<__int128>(b.n2 - 1) * b.s2;
  const __int128 lowest = static_cast<__int128>(b.off) + (r1 < 0 ? r1 : 0) + (r2 < 0 ? r2 : 0);
  const __int128 highest =
      static_cast<__int128>(b.off) + b.len + (r1 > 0 ? r1 : 0) + (r2 > 0 ? r2 : 0);
  return lowest >= INT64_MIN && highest <= INT64_MAX;
}

}  // namespace

void encode_layout(const dt::TypeInfo& t, std::vector<char>& out) {
  const std::vector<dt::Block>& b = t.blocks;
  LayoutHead h{};
  bool plain = true;
  for (const dt::Block& x : b)
    plain = plain && x.plain();
  const bool folded =
      b.size() == 1 && b[0].n2 == 1 && b[0].n1 > 1 && b[0].n1 <= static_cast<int64_t>(UINT32_MAX);
  const bool one_stride = folded || regular(b);
  h.form = one_stride ? LayoutForm::kStrided : plain ? LayoutForm::kList : LayoutForm::kBlocks;
  h.count = static_cast<uint32_t>(folded ? b[0].n1 : static_cast<int64_t>(b.size()));
  if (one_stride) {
    h.off = b[0].off;
    h.len = b[0].len;
    h.stride = folded ? b[0].s1 : b[1].off - b[0].off;
  }
  const std::size_t at = out.size();
  const std::size_t rec = one_stride ? 0 : plain ? sizeof(LayoutBlock) : sizeof(LayoutStrided);
  out.resize(at + sizeof h + b.size() * rec);
  std::memcpy(out.data() + at, &h, sizeof h);
  if (h.form == LayoutForm::kList)
    put_records<LayoutBlock>(b, out, at + sizeof h, [](const dt::Block& x) {
      return LayoutBlock{x.off, x.len};
    });
  else if (h.form == LayoutForm::kBlocks)
    put_records<LayoutStrided>(b, out, at + sizeof h, [](const dt::Block& x) {
      return LayoutStrided{x.off, x.len, x.n1, x.s1, x.n2, x.s2};
    });
}

bool decode_layout(const char* p, std::size_t n, uint64_t data_bytes,
                   std::vector<dt::Block>& blocks) {
  LayoutHead h;
  if (n < sizeof h) return false;
  std::memcpy(&h, p, sizeof h);
  blocks.clear();
  uint64_t total = 0;
  if (h.form == LayoutForm::kStrided) {
    const dt::Block b{h.off, h.len, h.count, h.count > 1 ? h.stride : 0};
    if (n != sizeof h || !sane(b, data_bytes, &total)) return false;
    blocks.push_back(b);
    return true;
  }
  const std::size_t rec = h.form == LayoutForm::kList     ? sizeof(LayoutBlock)
                          : h.form == LayoutForm::kBlocks ? sizeof(LayoutStrided)
                                                          : 0;
  if (rec == 0 || h.count == 0 || n != sizeof h + static_cast<std::size_t>(h.count) * rec)
    return false;
  blocks.resize(h.count);
  for (uint32_t i = 0; i < h.count; ++i) {
    dt::Block b{0, 0};
    if (h.form == LayoutForm::kList) {
      LayoutBlock w;
      std::memcpy(&w, p + sizeof h + i * rec, sizeof w);
      b = {w.off, w.len};
    } else {
      LayoutStrided w;
      std::memcpy(&w, p + sizeof h + i * rec, sizeof w);
      b = {w.off, w.len, w.n1, w.s1, w.n2, w.s2};
    }
    if (!sane(b, data_bytes, &total)) return false;
    blocks[i] = b;
  }
  return true;
}

}  // namespace osprey::am
