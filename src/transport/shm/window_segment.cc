#include "transport/shm/window_segment.h"

namespace osprey::shm {
namespace {

constexpr std::size_t kPage = 4096;

std::size_t align_up(std::size_t x, std::size_t a) {
  return (x + a - 1) / a * a;
}

}  // namespace

SegmentLayout SegmentLayout::compute(uint32_t nranks, const uint64_t* sizes, bool contiguous,
                                     std::size_t stripes, bool dynamic, uint64_t* data_offsets_out,
                                     std::size_t page_offset, std::size_t stage_bytes,
                                     bool served) {
  SegmentLayout l;
  l.nranks = nranks;
  l.stripes = stripes;
  l.dynamic = dynamic;
  l.match_words = (nranks + 63) / 64;
  std::size_t off = sizeof(SegmentHeader);
  l.barrier = off;
  off += barrier_slot_count(nranks) * sizeof(BarrierSlot);
  l.central = off;
  off += sizeof(CentralBarrierWords);
  l.rank_info = off;
  off += nranks * sizeof(RankInfo);
  l.locks = off;
  off += nranks * sizeof(LockWords);
  l.acc = off;
  off += nranks * sizeof(AccLock);
  l.inflight = off;
  l.inflight_row = align_up(nranks * sizeof(std::atomic<uint32_t>), cpu::kCacheLine);
  off += nranks * l.inflight_row;
  l.pscw = off;
  off += nranks * sizeof(PscwWords);
  l.match = off;
  off += align_up(nranks * l.match_words * sizeof(uint64_t), cpu::kCacheLine);
  l.stripe = off;
  off += stripes * sizeof(Stripe);
  l.attach = off;
  if (dynamic) off += nranks * sizeof(AttachTableHeader);
  l.stage_bytes = align_up(stage_bytes, cpu::kCacheLine);
  l.stage = off;
  if (l.stage_bytes) off += nranks * (sizeof(StageHeader) + l.stage_bytes);
  if (served) {
    l.serve = off;
    off += nranks * sizeof(ServeBell) + std::size_t{nranks} * nranks * sizeof(ServeSlot);
  }
  l.data = align_up(off, kPage);
  off = l.data;
  if (sizes) {
    for (uint32_t i = 0; i < nranks; ++i) {
      if (!contiguous) off = align_up(off, kPage) + page_offset;
      data_offsets_out[i] = off;
      off += sizes[i];
    }
  }
  l.total = align_up(off == l.data ? off + 1 : off, kPage);
  return l;
}

}  // namespace osprey::shm
