#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "transport/am/layout.h"
#include "transport/am/packet.h"

namespace osprey::am {
namespace {

std::vector<char> encode(const std::vector<dt::Block>& blocks) {
  dt::TypeInfo t;
  t.blocks = blocks;
  std::vector<char> wire;
  encode_layout(t, wire);
  return wire;
}

// Every run of a block list, as plain blocks in type map order.
std::vector<dt::Block> runs(const std::vector<dt::Block>& blocks) {
  std::vector<dt::Block> v;
  dt::BlockRuns w(blocks);
  MPI_Aint off, len;
  while (w.next(off, len))
    v.push_back({off, len});
  return v;
}

void expect_same_runs(const std::vector<dt::Block>& got, const std::vector<dt::Block>& want) {
  const std::vector<dt::Block> g = runs(got), w = runs(want);
  ASSERT_EQ(g.size(), w.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(g[i].off, w[i].off) << "run " << i;
    EXPECT_EQ(g[i].len, w[i].len) << "run " << i;
  }
}

TEST(LayoutWire, RegularBlocksTravelAsOneRecord) {
  std::vector<dt::Block> blocks;
  for (int i = 0; i < 1000; ++i)
    blocks.push_back({16 + i * 48, 8});
  const std::vector<char> wire = encode(blocks);
  EXPECT_EQ(wire.size(), sizeof(LayoutHead));  // O(description), not O(blocks)
  std::vector<dt::Block> back;
  ASSERT_TRUE(decode_layout(wire.data(), wire.size(), 1 << 20, back));
  expect_same_runs(back, blocks);
}

TEST(LayoutWire, IrregularBlocksAreListed) {
  const std::vector<dt::Block> blocks = {{0, 4}, {8, 4}, {24, 12}, {-16, 2}};
  const std::vector<char> wire = encode(blocks);
  EXPECT_EQ(wire.size(), sizeof(LayoutHead) + blocks.size() * sizeof(LayoutBlock));
  std::vector<dt::Block> back;
  ASSERT_TRUE(decode_layout(wire.data(), wire.size(), 1 << 20, back));
  expect_same_runs(back, blocks);
}

TEST(LayoutWire, StridedBlocksTravelAsTheirDescription) {
  // A vector of 1000 rows, then rows of rows (a 3-D subarray), then a plain block: three
  // records, whatever the run count, and the same runs after the trip.
  const std::vector<dt::Block> blocks = {
      {16, 8, 1000, 48}, {100000, 24, 50, 64, 30, 8192}, {-40, 4}};
  const std::vector<char> wire = encode(blocks);
  EXPECT_EQ(wire.size(), sizeof(LayoutHead) + blocks.size() * sizeof(LayoutStrided));
  std::vector<dt::Block> back;
  ASSERT_TRUE(decode_layout(wire.data(), wire.size(), 1 << 20, back));
  EXPECT_EQ(back.size(), blocks.size());
  expect_same_runs(back, blocks);
  // One strided block alone: the single-record form.
  const std::vector<char> one = encode({{8, 16, 500, -32}});
  EXPECT_EQ(one.size(), sizeof(LayoutHead));
  ASSERT_TRUE(decode_layout(one.data(), one.size(), 1 << 20, back));
  expect_same_runs(back, {{8, 16, 500, -32}});
}

TEST(LayoutWire, MalformedStridedBlocksAreRefused) {
  auto wire_of = [](const LayoutStrided& r) {
    LayoutHead h{};
    h.form = LayoutForm::kBlocks;
    h.count = 1;
    std::vector<char> w(sizeof h + sizeof r);
    std::memcpy(w.data(), &h, sizeof h);
    std::memcpy(w.data() + sizeof h, &r, sizeof r);
    return w;
  };
  std::vector<dt::Block> back;
  auto accepted = [&](const LayoutStrided& r, uint64_t bytes) {
    const std::vector<char> w = wire_of(r);
    return decode_layout(w.data(), w.size(), bytes, back);
  };
  EXPECT_TRUE(accepted({0, 8, 4, 16, 3, 256}, 96));
  EXPECT_FALSE(accepted({0, 8, 4, 16, 3, 256}, 95));                     // more runs than the data
  EXPECT_FALSE(accepted({0, 8, 0, 16, 3, 256}, 1 << 20));                // no runs
  EXPECT_FALSE(accepted({0, 8, 4, 16, -3, 256}, 1 << 20));               // negative count
  EXPECT_FALSE(accepted({0, 0, 4, 16, 3, 256}, 1 << 20));                // empty runs
  EXPECT_FALSE(accepted({0, 8, INT64_MAX, 16, 2, 0}, UINT64_MAX));       // bytes overflow
  EXPECT_FALSE(accepted({0, 8, 2, 16, 3, INT64_MAX / 2 + 8}, 1 << 20));  // offsets past 64 bits
  EXPECT_FALSE(accepted({0, 8, 3, INT64_MIN / 2 - 8, 2, 0}, 1 << 20));
  EXPECT_TRUE(accepted({0, 8, 2, INT64_MIN / 2 - 8, 2, 0}, 1 << 20));  // just inside
}

TEST(LayoutWire, MalformedLayoutsAreRefused) {
  const std::vector<dt::Block> blocks = {{0, 4}, {8, 4}, {24, 12}};
  const std::vector<char> wire = encode(blocks);
  std::vector<dt::Block> back;
  EXPECT_FALSE(decode_layout(wire.data(), wire.size() - 1, 1 << 20, back));  // truncated
  EXPECT_FALSE(decode_layout(wire.data(), 3, 1 << 20, back));
  std::vector<char> longer = wire;
  longer.push_back(0);
  EXPECT_FALSE(decode_layout(longer.data(), longer.size(), 1 << 20, back));
  LayoutHead h{};
  h.form = static_cast<LayoutForm>(7);
  h.count = 1;
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 1 << 20, back));
  h.form = LayoutForm::kStrided;
  h.count = 0;
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 1 << 20, back));
  h.count = 3;
  h.len = -1;
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 1 << 20, back));
  // More blocks than the element's data could fill: refused before anything is allocated.
  h.count = UINT32_MAX;
  h.len = 8;
  h.stride = 16;
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 1 << 20, back));
  h.count = 4;  // 32 bytes of blocks in a 24-byte element
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 24, back));
  EXPECT_TRUE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 32, back));
  h.stride = INT64_MAX / 2;  // offsets past 64 bits
  EXPECT_FALSE(decode_layout(reinterpret_cast<const char*>(&h), sizeof h, 32, back));
  EXPECT_FALSE(decode_layout(wire.data(), wire.size(), 19, back));  // the list covers 20 bytes
  EXPECT_TRUE(decode_layout(wire.data(), wire.size(), 20, back));
}

}  // namespace
}  // namespace osprey::am
