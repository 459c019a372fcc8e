#include <gtest/gtest.h>

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

TEST(LayoutWire, RegularBlocksTravelAsOneRecord) {
  std::vector<dt::Block> blocks;
  for (int i = 0; i < 1000; ++i)
    blocks.push_back({16 + i * 48, 8});
  const std::vector<char> wire = encode(blocks);
  EXPECT_EQ(wire.size(), sizeof(LayoutHead));  // O(description), not O(blocks)
  std::vector<dt::Block> back;
  ASSERT_TRUE(decode_layout(wire.data(), wire.size(), 1 << 20, back));
  ASSERT_EQ(back.size(), blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(back[i].off, blocks[i].off);
    EXPECT_EQ(back[i].len, blocks[i].len);
  }
}

TEST(LayoutWire, IrregularBlocksAreListed) {
  const std::vector<dt::Block> blocks = {{0, 4}, {8, 4}, {24, 12}, {-16, 2}};
  const std::vector<char> wire = encode(blocks);
  EXPECT_EQ(wire.size(), sizeof(LayoutHead) + blocks.size() * sizeof(LayoutBlock));
  std::vector<dt::Block> back;
  ASSERT_TRUE(decode_layout(wire.data(), wire.size(), 1 << 20, back));
  ASSERT_EQ(back.size(), blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(back[i].off, blocks[i].off);
    EXPECT_EQ(back[i].len, blocks[i].len);
  }
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
