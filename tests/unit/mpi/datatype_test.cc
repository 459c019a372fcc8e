// Datatype decoding (datatype/flatten.cc, type_cache.cc) and the walks over decoded layouts
// (runs.h, elements.h, byte_layout.h), checked against what the host MPI itself does with the
// same datatypes: MPI_Pack tells which bytes a type covers and in which order.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "datatype/byte_layout.h"
#include "datatype/elements.h"
#include "datatype/flatten.h"
#include "datatype/runs.h"
#include "datatype/type_info.h"

namespace osprey::dt {
namespace {

class DatatypeTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { init_predefined(); }
  void TearDown() override {
    for (MPI_Datatype& t : owned_)
      MPI_Type_free(&t);
  }
  // Commits t and frees it after the test.
  MPI_Datatype keep(MPI_Datatype t) {
    MPI_Type_commit(&t);
    owned_.push_back(t);
    return t;
  }
  std::vector<MPI_Datatype> owned_;
};

const TypeInfo* info_of(MPI_Datatype t) {
  Status err;
  const TypeInfo* p = lookup(t, &err);
  EXPECT_NE(p, nullptr) << (err.msg ? err.msg : "");
  return p;
}

// The room a buffer needs around `count` elements, so that negative bounds stay inside.
struct Span {
  MPI_Aint before, bytes;
};
Span span_of(MPI_Datatype t, int count) {
  MPI_Aint lb, extent, tlb, text;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &tlb, &text);
  const MPI_Aint lo = std::min<MPI_Aint>({0, lb, tlb});
  const MPI_Aint hi = std::max<MPI_Aint>(tlb + text, lb + extent) + (count - 1) * extent;
  return {-lo + 16, hi - lo + 32};
}

// The offset (from the buffer address) of every data byte of `count` elements, in type map
// order, as the host's MPI_Pack reports it: the buffer holds each byte's own offset, spread
// over three passes of one byte each.
std::vector<MPI_Aint> mpi_offsets(MPI_Datatype t, int count) {
  const Span s = span_of(t, count);
  std::vector<unsigned char> buf(static_cast<size_t>(s.bytes));
  int packed_size = 0;
  MPI_Pack_size(count, t, MPI_COMM_SELF, &packed_size);
  std::vector<MPI_Aint> offsets;
  std::vector<std::vector<unsigned char>> passes;
  for (int shift = 0; shift < 24; shift += 8) {
    for (size_t i = 0; i < buf.size(); ++i)
      buf[i] = static_cast<unsigned char>((i >> shift) & 0xff);
    std::vector<unsigned char> out(static_cast<size_t>(packed_size));
    int pos = 0;
    MPI_Pack(buf.data() + s.before, count, t, out.data(), packed_size, &pos, MPI_COMM_SELF);
    out.resize(static_cast<size_t>(pos));
    passes.push_back(out);
  }
  for (size_t k = 0; k < passes[0].size(); ++k) {
    const MPI_Aint abs = passes[0][k] | (passes[1][k] << 8) | (passes[2][k] << 16);
    offsets.push_back(abs - s.before);
  }
  return offsets;
}

// The runs of osprey's decoded (strided) blocks, as plain blocks in type map order, runs that
// touch merged.
std::vector<Block> runs_of(const std::vector<Block>& blocks) {
  std::vector<Block> v;
  BlockRuns w(blocks);
  MPI_Aint off, len;
  while (w.next(off, len)) {
    if (!v.empty() && v.back().off + v.back().len == off)
      v.back().len += len;
    else
      v.push_back({off, len});
  }
  return v;
}

// The same from osprey's decoded blocks, expanded run by run by hand (not by BlockRuns).
std::vector<MPI_Aint> block_offsets(const TypeInfo& t, int count) {
  std::vector<MPI_Aint> v;
  for (int e = 0; e < count; ++e)
    for (const Block& b : t.blocks)
      for (int64_t i2 = 0; i2 < b.n2; ++i2)
        for (int64_t i1 = 0; i1 < b.n1; ++i1)
          for (MPI_Aint k = 0; k < b.len; ++k)
            v.push_back(e * t.extent + b.off + i2 * b.s2 + i1 * b.s1 + k);
  return v;
}

// The same from a RunCursor over a buffer at `base`.
std::vector<MPI_Aint> run_offsets(const TypeInfo& t, int count) {
  std::vector<char> buf(1);
  char* base = buf.data();
  RunCursor c(base, count, t);
  std::vector<MPI_Aint> v;
  char* p;
  std::size_t n;
  while (c.next(p, n)) {
    EXPECT_GT(n, 0u);
    for (std::size_t k = 0; k < n; ++k)
      v.push_back(p - base + static_cast<MPI_Aint>(k));
  }
  return v;
}

// Checks everything the decoder says about t against the host's view of it.
void check_type(MPI_Datatype t, bool want_dense, Category want_cat, Repr want_repr,
                uint32_t want_elem, const std::vector<Block>& want_blocks = {}) {
  const TypeInfo* ti = info_of(t);
  ASSERT_NE(ti, nullptr);
  MPI_Count size;
  MPI_Aint lb, extent, tlb, text;
  MPI_Type_size_x(t, &size);
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &tlb, &text);
  EXPECT_EQ(ti->size, size);
  EXPECT_EQ(ti->lb, lb);
  EXPECT_EQ(ti->extent, extent);
  EXPECT_EQ(ti->true_lb, tlb);
  EXPECT_EQ(ti->true_extent, text);
  EXPECT_EQ(ti->dense, want_dense);
  EXPECT_EQ(static_cast<int>(ti->cat), static_cast<int>(want_cat));
  EXPECT_EQ(static_cast<int>(ti->repr), static_cast<int>(want_repr));
  EXPECT_EQ(ti->elem_size, want_elem);
  if (!want_blocks.empty()) {
    const std::vector<Block> got = runs_of(ti->blocks);
    ASSERT_EQ(got.size(), want_blocks.size());
    for (size_t i = 0; i < want_blocks.size(); ++i) {
      EXPECT_EQ(got[i].off, want_blocks[i].off) << "run " << i;
      EXPECT_EQ(got[i].len, want_blocks[i].len) << "run " << i;
    }
  }
  for (int count : {1, 3}) {
    SCOPED_TRACE(testing::Message() << "count " << count);
    const std::vector<MPI_Aint> want = mpi_offsets(t, count);
    EXPECT_EQ(static_cast<MPI_Count>(want.size()), size * count);
    EXPECT_EQ(block_offsets(*ti, count), want);
    EXPECT_EQ(run_offsets(*ti, count), want);
  }
  // Same handle, same entry.
  EXPECT_EQ(info_of(t), ti);
}

TEST_F(DatatypeTest, PredefinedTypes) {
  check_type(MPI_INT, true, Category::kInteger, Repr::kI32, 4, {{0, 4}});
  check_type(MPI_DOUBLE, true, Category::kFloating, Repr::kF64, 8);
  check_type(MPI_CHAR, true, Category::kInteger, Repr::kI8, 1);
  check_type(MPI_BYTE, true, Category::kByte, Repr::kU8, 1);
  check_type(MPI_C_BOOL, true, Category::kLogical, Repr::kBool8, 1);
  check_type(MPI_C_DOUBLE_COMPLEX, true, Category::kComplex, Repr::kC64, 16);
  check_type(MPI_UINT16_T, true, Category::kInteger, Repr::kU16, 2);
  check_type(MPI_FLOAT_INT, true, Category::kPair, Repr::kPairF32I32, 8, {{0, 8}});
  // Pairs with padding: the data blocks skip it, and count elements are not one run.
  check_type(MPI_SHORT_INT, false, Category::kPair, Repr::kPairI16I32, 6, {{0, 2}, {4, 4}});
  check_type(MPI_DOUBLE_INT, false, Category::kPair, Repr::kPairF64I32, 12, {{0, 12}});
  EXPECT_TRUE(info_of(MPI_INT)->predefined);
}

TEST_F(DatatypeTest, Contiguous) {
  MPI_Datatype t;
  MPI_Type_contiguous(5, MPI_INT, &t);
  check_type(keep(t), true, Category::kInteger, Repr::kI32, 4, {{0, 20}});
  EXPECT_FALSE(info_of(t)->predefined);
}

TEST_F(DatatypeTest, Vector) {
  MPI_Datatype t;
  MPI_Type_vector(3, 2, 4, MPI_INT, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kI32, 4, {{0, 8}, {16, 8}, {32, 8}});
}

TEST_F(DatatypeTest, VectorWithNegativeStride) {
  MPI_Datatype t;
  MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t);
  check_type(keep(t), false, Category::kFloating, Repr::kF64, 8, {{0, 8}, {-16, 8}, {-32, 8}});
}

TEST_F(DatatypeTest, Hvector) {
  MPI_Datatype t;
  MPI_Type_create_hvector(3, 1, 12, MPI_FLOAT, &t);
  check_type(keep(t), false, Category::kFloating, Repr::kF32, 4, {{0, 4}, {12, 4}, {24, 4}});
  // Blocks that touch merge into one run: dense.
  MPI_Datatype u;
  MPI_Type_create_hvector(4, 2, 8, MPI_FLOAT, &u);
  check_type(keep(u), true, Category::kFloating, Repr::kF32, 4, {{0, 32}});
}

TEST_F(DatatypeTest, Indexed) {
  // Type map order differs from address order: the blocks must keep the type map order.
  const int lens[3] = {2, 1, 3}, displs[3] = {5, 0, 8};
  MPI_Datatype t;
  MPI_Type_indexed(3, lens, displs, MPI_INT, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kI32, 4, {{20, 8}, {0, 4}, {32, 12}});
}

TEST_F(DatatypeTest, IndexedInOrderMergesIntoOneDenseBlock) {
  const int lens[2] = {2, 3}, displs[2] = {0, 2};
  MPI_Datatype t;
  MPI_Type_indexed(2, lens, displs, MPI_INT, &t);
  check_type(keep(t), true, Category::kInteger, Repr::kI32, 4, {{0, 20}});
}

TEST_F(DatatypeTest, Hindexed) {
  const int lens[2] = {1, 2};
  const MPI_Aint displs[2] = {16, 4};
  MPI_Datatype t;
  MPI_Type_create_hindexed(2, lens, displs, MPI_SHORT, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kI16, 2, {{16, 2}, {4, 4}});
}

TEST_F(DatatypeTest, IndexedBlockAndHindexedBlock) {
  const int displs[3] = {4, 0, 9};
  MPI_Datatype t;
  MPI_Type_create_indexed_block(3, 2, displs, MPI_UNSIGNED, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kU32, 4, {{16, 8}, {0, 8}, {36, 8}});
  const MPI_Aint hdispls[2] = {24, 2};
  MPI_Datatype u;
  MPI_Type_create_hindexed_block(2, 3, hdispls, MPI_CHAR, &u);
  check_type(keep(u), false, Category::kInteger, Repr::kI8, 1, {{24, 3}, {2, 3}});
}

TEST_F(DatatypeTest, StructOfOneBasicType) {
  const int lens[2] = {2, 1};
  const MPI_Aint displs[2] = {0, 16};
  const MPI_Datatype types[2] = {MPI_FLOAT, MPI_FLOAT};
  MPI_Datatype t;
  MPI_Type_create_struct(2, lens, displs, types, &t);
  check_type(keep(t), false, Category::kFloating, Repr::kF32, 4, {{0, 8}, {16, 4}});
  // Two names of the same C type are one basic type.
  const MPI_Datatype same[2] = {MPI_INT, MPI_INT32_T};
  MPI_Datatype u;
  MPI_Type_create_struct(2, lens, displs, same, &u);
  check_type(keep(u), false, Category::kInteger, Repr::kI32, 4, {{0, 8}, {16, 4}});
}

TEST_F(DatatypeTest, StructOfTwoBasicTypesIsMixed) {
  const int lens[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype t;
  MPI_Type_create_struct(2, lens, displs, types, &t);
  check_type(keep(t), false, Category::kMixed, Repr::kNone, 0, {{0, 4}, {8, 8}});
  // Same width, different signedness: still two basic types.
  const MPI_Datatype ints[2] = {MPI_INT, MPI_UNSIGNED};
  MPI_Datatype u;
  MPI_Type_create_struct(2, lens, displs, ints, &u);
  EXPECT_EQ(info_of(keep(u))->cat, Category::kMixed);
}

// A member that contributes nothing to the type map (block length 0, or an empty contiguous
// type) is not one of the datatype's basic types: a struct of ints and zero doubles is made of
// ints only (MPI-3.1 4.1.2), so accumulates accept it (MPI-3.1 11.3.4).
TEST_F(DatatypeTest, EmptyStructMembersAreNotBasicTypesOfTheType) {
  const int lens[2] = {1, 0};
  const MPI_Aint displs[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype t;
  MPI_Type_create_struct(2, lens, displs, types, &t);
  const TypeInfo* ti = info_of(keep(t));
  ASSERT_NE(ti, nullptr);
  EXPECT_EQ(static_cast<int>(ti->cat), static_cast<int>(Category::kInteger));
  EXPECT_EQ(static_cast<int>(ti->repr), static_cast<int>(Repr::kI32));

  MPI_Datatype none, u;
  MPI_Type_contiguous(0, MPI_DOUBLE, &none);
  const int ulens[2] = {2, 1};
  const MPI_Datatype utypes[2] = {MPI_INT, none};
  MPI_Type_create_struct(2, ulens, displs, utypes, &u);
  MPI_Type_free(&none);
  const TypeInfo* ui = info_of(keep(u));
  ASSERT_NE(ui, nullptr);
  EXPECT_EQ(static_cast<int>(ui->cat), static_cast<int>(Category::kInteger));
}

TEST_F(DatatypeTest, SubarrayCOrder) {
  const int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 1};
  MPI_Datatype t;
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kI32, 4, {{24, 12}, {44, 12}});
}

TEST_F(DatatypeTest, SubarrayFortranOrder) {
  const int sizes[3] = {3, 4, 2}, subs[3] = {2, 2, 2}, starts[3] = {1, 0, 0};
  MPI_Datatype t;
  MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
  check_type(keep(t), false, Category::kFloating, Repr::kF64, 8);
}

TEST_F(DatatypeTest, SubarrayOfADerivedType) {
  MPI_Datatype pair, t;
  MPI_Type_contiguous(2, MPI_SHORT, &pair);
  const int sizes[1] = {6}, subs[1] = {3}, starts[1] = {2};
  MPI_Type_create_subarray(1, sizes, subs, starts, MPI_ORDER_C, pair, &t);
  MPI_Type_free(&pair);  // the subarray keeps its own reference
  check_type(keep(t), false, Category::kInteger, Repr::kI16, 2, {{8, 12}});
}

TEST_F(DatatypeTest, EmptySubarray) {
  const int sizes[2] = {4, 4}, subs[2] = {0, 2}, starts[2] = {0, 0};
  MPI_Datatype t;
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  // MPI-3.1 leaves zero subsizes open: MPICH accepts them, Open MPI 4.1 refuses.
  if (rc != MPI_SUCCESS) GTEST_SKIP() << "the host refuses a subarray with a zero subsize";
  const TypeInfo* ti = info_of(keep(t));
  ASSERT_NE(ti, nullptr);
  EXPECT_EQ(ti->size, 0);
  EXPECT_TRUE(ti->blocks.empty());
  EXPECT_TRUE(ti->dense);
}

TEST_F(DatatypeTest, Resized) {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_INT, -4, 12, &t);
  check_type(keep(t), false, Category::kInteger, Repr::kI32, 4, {{0, 4}});
  EXPECT_EQ(info_of(t)->lb, -4);
}

TEST_F(DatatypeTest, ResizedDenseWithALowerBound) {
  // One block of two ints at byte 8, resized so that elements follow each other: dense, but
  // the data starts at true_lb, not at the buffer address.
  const int lens[1] = {2};
  const MPI_Aint displs[1] = {8};
  MPI_Datatype h, t;
  MPI_Type_create_hindexed(1, lens, displs, MPI_INT, &h);
  MPI_Type_create_resized(h, 8, 8, &t);
  MPI_Type_free(&h);
  check_type(keep(t), true, Category::kInteger, Repr::kI32, 4, {{8, 8}});
  EXPECT_EQ(info_of(t)->true_lb, 8);
}

TEST_F(DatatypeTest, Dup) {
  MPI_Datatype t;
  MPI_Type_dup(MPI_DOUBLE, &t);
  check_type(keep(t), true, Category::kFloating, Repr::kF64, 8, {{0, 8}});
  MPI_Datatype v, u;
  MPI_Type_vector(2, 1, 3, MPI_SHORT, &v);
  MPI_Type_dup(v, &u);
  MPI_Type_free(&v);
  check_type(keep(u), false, Category::kInteger, Repr::kI16, 2, {{0, 2}, {6, 2}});
}

TEST_F(DatatypeTest, Nested) {
  MPI_Datatype inner, mid, outer;
  MPI_Type_vector(2, 1, 3, MPI_INT, &inner);  // {0,4} {12,4}, extent 16
  MPI_Type_contiguous(2, inner, &mid);        // {0,4} {12,8} {28,4}: the middle ones touch
  MPI_Type_create_hvector(2, 1, 40, mid, &outer);
  MPI_Type_free(&inner);
  MPI_Type_free(&mid);
  check_type(keep(outer), false, Category::kInteger, Repr::kI32, 4,
             {{0, 4}, {12, 8}, {28, 4}, {40, 4}, {52, 8}, {68, 4}});
}

TEST_F(DatatypeTest, NestedStructOfResizedPairs) {
  MPI_Datatype pair, padded, t;
  MPI_Type_contiguous(1, MPI_SHORT_INT, &pair);
  MPI_Type_create_resized(pair, 0, 12, &padded);
  const int lens[2] = {2, 1};
  const MPI_Aint displs[2] = {0, 40};
  const MPI_Datatype types[2] = {padded, MPI_SHORT_INT};
  MPI_Type_create_struct(2, lens, displs, types, &t);
  MPI_Type_free(&pair);
  MPI_Type_free(&padded);
  check_type(keep(t), false, Category::kPair, Repr::kPairI16I32, 6,
             {{0, 2}, {4, 4}, {12, 2}, {16, 4}, {40, 2}, {44, 4}});
}

TEST_F(DatatypeTest, ContiguousOfPaddedPairs) {
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_DOUBLE_INT, &t);
  check_type(keep(t), false, Category::kPair, Repr::kPairF64I32, 12, {{0, 12}, {16, 12}});
}

TEST_F(DatatypeTest, ZeroCountIsEmptyAndDense) {
  MPI_Datatype t;
  MPI_Type_contiguous(0, MPI_INT, &t);
  const TypeInfo* ti = info_of(keep(t));
  ASSERT_NE(ti, nullptr);
  EXPECT_EQ(ti->size, 0);
  EXPECT_TRUE(ti->dense);
  EXPECT_TRUE(ti->blocks.empty());
  char* p;
  std::size_t n;
  char buf[4];
  RunCursor c(buf, 5, *ti);
  EXPECT_FALSE(c.next(p, n));
}

TEST_F(DatatypeTest, UnsupportedTypesAreErrors) {
  Status err;
  EXPECT_EQ(lookup(MPI_DATATYPE_NULL, &err), nullptr);
  EXPECT_EQ(err.cls, MPI_ERR_TYPE);
  const int gsizes[1] = {8}, distribs[1] = {MPI_DISTRIBUTE_BLOCK},
            dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[1] = {1};
  MPI_Datatype d;
  MPI_Type_create_darray(1, 0, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &d);
  err = Status{};
  EXPECT_EQ(lookup(keep(d), &err), nullptr);
  EXPECT_EQ(err.cls, MPI_ERR_TYPE);
}

TEST_F(DatatypeTest, FreedHandleIsNeverServedStale) {
  // The host reuses freed handles: the cache entry must go with the type.
  for (int round = 0; round < 4; ++round) {
    MPI_Datatype a;
    MPI_Type_contiguous(2 + round, MPI_INT, &a);
    MPI_Type_commit(&a);
    const TypeInfo* ia = info_of(a);
    ASSERT_NE(ia, nullptr);
    EXPECT_EQ(ia->size, 4 * (2 + round));
    MPI_Type_free(&a);
    MPI_Datatype b;
    MPI_Type_vector(2, 1, 2 + round, MPI_DOUBLE, &b);
    MPI_Type_commit(&b);
    const TypeInfo* ib = info_of(b);
    ASSERT_NE(ib, nullptr);
    EXPECT_EQ(ib->size, 16);
    EXPECT_EQ(static_cast<int>(ib->repr), static_cast<int>(Repr::kF64));
    const std::vector<Block> runs = runs_of(ib->blocks);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].off, 8 * (2 + round));
    MPI_Type_free(&b);
  }
}

TEST_F(DatatypeTest, TypesBuiltTheSameWayShareOneDecoding) {
  // A fresh handle per operation with one constructor: decoded once.
  MPI_Datatype a, b, c;
  MPI_Type_vector(4, 3, 7, MPI_DOUBLE, &a);
  MPI_Type_vector(4, 3, 7, MPI_DOUBLE, &b);
  MPI_Type_vector(4, 3, 8, MPI_DOUBLE, &c);
  const TypeInfo* ia = info_of(keep(a));
  EXPECT_EQ(info_of(keep(b)), ia);
  EXPECT_NE(info_of(keep(c)), ia);
  EXPECT_EQ(info_of(c)->extent, (3 * 8 + 3) * 8);
  // The shared decoding outlives the handles that used it (AddressSanitizer catches a missing
  // reference): freed, rebuilt, found again.
  MPI_Datatype d, e;
  MPI_Type_vector(5, 2, 9, MPI_INT, &d);
  MPI_Type_commit(&d);
  const TypeInfo* id = info_of(d);
  MPI_Type_vector(5, 2, 9, MPI_INT, &e);
  MPI_Type_commit(&e);
  ASSERT_EQ(info_of(e), id);
  MPI_Type_free(&d);
  EXPECT_EQ(info_of(e)->size, 40);
  MPI_Type_free(&e);
  MPI_Type_vector(5, 2, 9, MPI_INT, &d);
  MPI_Type_commit(&d);
  EXPECT_EQ(info_of(d), id);
  EXPECT_EQ(runs_of(info_of(d)->blocks).size(), 5u);
  MPI_Type_free(&d);
  // Equal arguments over a derived type are not the same type once that handle is reused:
  // such constructors are decoded each time.
  MPI_Datatype inner, outer1, outer2;
  MPI_Type_contiguous(2, MPI_INT, &inner);
  MPI_Type_contiguous(3, inner, &outer1);
  MPI_Type_contiguous(3, inner, &outer2);
  keep(inner);
  EXPECT_NE(info_of(keep(outer1)), info_of(keep(outer2)));
  EXPECT_EQ(info_of(outer2)->size, 24);
}

TEST_F(DatatypeTest, RetainKeepsInfoPastTypeFree) {
  MPI_Datatype a;
  MPI_Type_vector(3, 1, 2, MPI_INT, &a);
  MPI_Type_commit(&a);
  const TypeInfo* ia = info_of(a);
  ASSERT_NE(ia, nullptr);
  retain(ia);
  MPI_Type_free(&a);
  // An operation in flight still reads it (AddressSanitizer catches a premature delete).
  EXPECT_EQ(ia->size, 12);
  EXPECT_EQ(runs_of(ia->blocks).size(), 3u);
  release(ia);
}

TEST_F(DatatypeTest, FlattenFillsBlocksAndKind) {
  MPI_Datatype t;
  MPI_Type_vector(2, 1, 2, MPI_LONG_LONG, &t);
  keep(t);
  TypeInfo ti;
  MPI_Type_size_x(t, &ti.size);
  ASSERT_TRUE(flatten(t, ti).ok());
  EXPECT_EQ(runs_of(ti.blocks).size(), 2u);
  EXPECT_EQ(static_cast<int>(ti.repr), static_cast<int>(Repr::kI64));
  // A size that disagrees with the blocks is caught.
  TypeInfo wrong;
  wrong.size = 7;
  EXPECT_EQ(flatten(t, wrong).cls, MPI_ERR_TYPE);
}

// Element starts of `count` elements, as ElementCursor walks them, relative to base.
std::vector<MPI_Aint> element_starts(const TypeInfo& t, int count) {
  std::vector<char> buf(1);
  char* base = buf.data();
  ElementCursor c(base, count, t);
  std::vector<MPI_Aint> v;
  char* e;
  while (c.next(e))
    v.push_back(e - base);
  return v;
}

void check_elements(MPI_Datatype t, int count) {
  const TypeInfo* ti = info_of(t);
  ASSERT_NE(ti, nullptr);
  ASSERT_GT(ti->elem_size, 0u);
  // Every elem_size-th data byte in type map order starts a basic element.
  const std::vector<MPI_Aint> bytes = mpi_offsets(t, count);
  std::vector<MPI_Aint> want;
  for (size_t k = 0; k < bytes.size(); k += ti->elem_size)
    want.push_back(bytes[k]);
  EXPECT_EQ(element_starts(*ti, count), want);
}

TEST_F(DatatypeTest, ElementCursorWalksEveryBasicElement) {
  MPI_Datatype v, idx, pairs, resized;
  MPI_Type_vector(3, 2, 5, MPI_INT, &v);
  check_elements(keep(v), 3);
  const int lens[2] = {2, 1}, displs[2] = {4, 0};
  MPI_Type_indexed(2, lens, displs, MPI_DOUBLE, &idx);
  check_elements(keep(idx), 2);
  // Pairs whose data straddles a hole: an element spans two blocks.
  MPI_Type_contiguous(3, MPI_SHORT_INT, &pairs);
  check_elements(keep(pairs), 2);
  MPI_Type_create_resized(MPI_SHORT, -2, 6, &resized);
  check_elements(keep(resized), 4);
  check_elements(MPI_INT, 5);
  check_elements(MPI_DOUBLE_INT, 3);
  check_elements(MPI_C_DOUBLE_COMPLEX, 2);
}

TEST_F(DatatypeTest, ElementCursorOfZeroCount) {
  std::vector<char> buf(64);
  ElementCursor c(buf.data(), 0, *info_of(MPI_INT));
  char* e;
  EXPECT_FALSE(c.next(e));
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  ElementCursor d(buf.data(), 0, *info_of(keep(v)));
  EXPECT_FALSE(d.next(e));
}

// osprey's pack and unpack against the host's MPI_Pack and MPI_Unpack of the same data.
void check_pack(MPI_Datatype t, int count) {
  const TypeInfo* ti = info_of(t);
  ASSERT_NE(ti, nullptr);
  const Span s = span_of(t, count);
  std::vector<unsigned char> src(static_cast<size_t>(s.bytes));
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>(i * 7 + 3);
  int packed_size = 0;
  MPI_Pack_size(count, t, MPI_COMM_SELF, &packed_size);
  std::vector<unsigned char> by_mpi(static_cast<size_t>(packed_size));
  int pos = 0;
  MPI_Pack(src.data() + s.before, count, t, by_mpi.data(), packed_size, &pos, MPI_COMM_SELF);
  by_mpi.resize(static_cast<size_t>(pos));
  ASSERT_EQ(by_mpi.size(), data_bytes(count, *ti));
  std::vector<unsigned char> by_osprey(by_mpi.size() + 8, 0xee);
  pack(by_osprey.data(), src.data() + s.before, count, *ti);
  EXPECT_TRUE(std::equal(by_mpi.begin(), by_mpi.end(), by_osprey.begin()));
  EXPECT_EQ(by_osprey[by_mpi.size()], 0xee);  // nothing written past the packed data

  // Unpack a different stream into a prefilled buffer: holes must stay untouched.
  std::vector<unsigned char> stream(by_mpi.size());
  for (size_t i = 0; i < stream.size(); ++i)
    stream[i] = static_cast<unsigned char>(200 - i);
  std::vector<unsigned char> un_mpi(src.size(), 0x11), un_osprey(src.size(), 0x11);
  pos = 0;
  MPI_Unpack(stream.data(), static_cast<int>(stream.size()), &pos, un_mpi.data() + s.before, count,
             t, MPI_COMM_SELF);
  unpack(un_osprey.data() + s.before, count, *ti, stream.data());
  EXPECT_EQ(un_osprey, un_mpi);
}

TEST_F(DatatypeTest, PackAndUnpackMatchTheHost) {
  MPI_Datatype v, idx, sub, res, st;
  MPI_Type_vector(4, 3, 5, MPI_FLOAT, &v);
  const int lens[3] = {1, 2, 1}, displs[3] = {6, 1, 4};
  MPI_Type_indexed(3, lens, displs, MPI_SHORT, &idx);
  const int sizes[2] = {5, 6}, subs[2] = {3, 2}, starts[2] = {2, 3};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &sub);
  MPI_Type_create_resized(MPI_INT, -8, 20, &res);
  const int slens[2] = {1, 3};
  const MPI_Aint sdispls[2] = {32, 0};
  const MPI_Datatype stypes[2] = {MPI_INT, MPI_CHAR};
  MPI_Type_create_struct(2, slens, sdispls, stypes, &st);
  for (MPI_Datatype t : {keep(v), keep(idx), keep(sub), keep(res), keep(st), MPI_INT, MPI_SHORT_INT,
                         MPI_DOUBLE_INT}) {
    for (int count : {1, 2, 5}) {
      SCOPED_TRACE(testing::Message() << "type " << t << " count " << count);
      check_pack(t, count);
    }
  }
}

TEST_F(DatatypeTest, CopyBetweenDifferentLayoutsOfTheSameData) {
  // A vector of 6 ints into an indexed type holding 6 ints: same bytes, different places,
  // compared with the host moving them through a packed stream.
  MPI_Datatype v, idx;
  MPI_Type_vector(3, 2, 3, MPI_INT, &v);
  const int lens[2] = {4, 2}, displs[2] = {10, 0};
  MPI_Type_indexed(2, lens, displs, MPI_INT, &idx);
  keep(v);
  keep(idx);
  std::vector<int> src(16), dst_osprey(16, -1), dst_mpi(16, -1);
  for (int i = 0; i < 16; ++i)
    src[static_cast<size_t>(i)] = 100 + i;
  copy(dst_osprey.data(), 1, *info_of(idx), src.data(), 1, *info_of(v));
  std::vector<char> stream(64);
  int pos = 0;
  MPI_Pack(src.data(), 1, v, stream.data(), 64, &pos, MPI_COMM_SELF);
  pos = 0;
  MPI_Unpack(stream.data(), 64, &pos, dst_mpi.data(), 1, idx, MPI_COMM_SELF);
  EXPECT_EQ(dst_osprey, dst_mpi);
}

// Sends from and receives into the byte layout on MPI_COMM_SELF, as the message path does
// (MPICH's MPI_Pack refuses the MPI_BOTTOM buffer, point-to-point takes it), and compares
// with packing and unpacking the original type.
// `count` elements of t over a buffer of numbered bytes (i * mul + add), and what MPI_Pack
// makes of them.
struct Packed {
  Span s;
  std::vector<unsigned char> src, want;
  int bytes = 0;
  int packed = 0;  // what MPI_Pack reported
};
Packed packed_source(MPI_Datatype t, int count, const TypeInfo& ti, unsigned mul, unsigned add) {
  Packed p;
  p.s = span_of(t, count);
  p.src.resize(static_cast<size_t>(p.s.bytes));
  for (size_t i = 0; i < p.src.size(); ++i)
    p.src[i] = static_cast<unsigned char>(i * mul + add);
  p.bytes = static_cast<int>(data_bytes(count, ti));
  p.want.resize(static_cast<size_t>(p.bytes));
  MPI_Pack(p.src.data() + p.s.before, count, t, p.want.data(), p.bytes, &p.packed, MPI_COMM_SELF);
  return p;
}

// A buffer of `fill` the size of p.src, into which MPI_Unpack placed p.want.
std::vector<unsigned char> unpacked_reference(const Packed& p, MPI_Datatype t, int count,
                                              unsigned char fill) {
  std::vector<unsigned char> ref(p.src.size(), fill);
  int pos = 0;
  MPI_Unpack(p.want.data(), p.bytes, &pos, ref.data() + p.s.before, count, t, MPI_COMM_SELF);
  return ref;
}

void check_byte_layout(MPI_Datatype t, int count) {
  const TypeInfo* ti = info_of(t);
  ASSERT_NE(ti, nullptr);
  Packed p = packed_source(t, count, *ti, 13, 1);
  const Span& s = p.s;
  std::vector<unsigned char>& src = p.src;
  const std::vector<unsigned char>& want = p.want;
  const int bytes = p.bytes;
  ASSERT_EQ(p.packed, bytes);

  ByteLayout l = byte_layout(src.data() + s.before, count, *ti);
  EXPECT_EQ(l.owned, !ti->dense);
  std::vector<unsigned char> got(static_cast<size_t>(bytes) + 1, 0);
  MPI_Status st;
  MPI_Sendrecv(l.addr, l.count, l.type, 0, 7, got.data(), bytes + 1, MPI_BYTE, 0, 7, MPI_COMM_SELF,
               &st);
  int received = 0;
  MPI_Get_count(&st, MPI_BYTE, &received);
  EXPECT_EQ(received, bytes);
  got.resize(static_cast<size_t>(bytes));
  EXPECT_EQ(got, want);
  release(l);
  EXPECT_FALSE(l.owned);
  EXPECT_EQ(l.type, MPI_BYTE);

  // Into the layout: only the data bytes change, as MPI_Unpack would change them.
  std::vector<unsigned char> into(src.size(), 0x22);
  const std::vector<unsigned char> ref = unpacked_reference(p, t, count, 0x22);
  ByteLayout in = byte_layout(into.data() + s.before, count, *ti);
  MPI_Sendrecv(want.data(), bytes, MPI_BYTE, 0, 8, in.addr, in.count, in.type, 0, 8, MPI_COMM_SELF,
               MPI_STATUS_IGNORE);
  release(in);
  EXPECT_EQ(into, ref);
}

TEST_F(DatatypeTest, ByteLayoutCoversTheSameBytes) {
  MPI_Datatype c, v, res;
  MPI_Type_contiguous(4, MPI_DOUBLE, &c);
  MPI_Type_vector(3, 1, 4, MPI_INT, &v);
  MPI_Type_create_resized(MPI_INT, -4, 12, &res);
  for (MPI_Datatype t : {keep(c), keep(v), keep(res), MPI_INT, MPI_SHORT_INT}) {
    for (int count : {1, 3}) {
      SCOPED_TRACE(testing::Message() << "type " << t << " count " << count);
      check_byte_layout(t, count);
    }
  }
}

// The first `head` data bytes packed apart (pack_head), the rest cut into pieces of `piece`
// bytes, sent one message each on MPI_COMM_SELF: head and messages hold the packed bytes in
// order, each message `piece` long but the last; unpacked (unpack_head) and received piece by
// piece into the layout, only the data bytes change, as MPI_Unpack would change them.
void check_byte_layout_pieces(MPI_Datatype t, int count, std::size_t piece, std::size_t head = 0) {
  const TypeInfo* ti = info_of(t);
  ASSERT_NE(ti, nullptr);
  Packed p = packed_source(t, count, *ti, 29, 3);
  const Span& s = p.s;
  std::vector<unsigned char>& src = p.src;
  const std::vector<unsigned char>& want = p.want;
  const auto bytes = static_cast<std::size_t>(p.bytes);
  if (head >= bytes) return;  // a head is always less than the whole

  std::vector<unsigned char> got(head);
  pack_head(got.data(), src.data() + s.before, count, *ti, head);
  std::vector<ByteLayout> out = byte_layout_pieces(src.data() + s.before, count, *ti, piece, head);
  EXPECT_EQ(out.size(), (bytes - head + piece - 1) / piece);
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::vector<unsigned char> msg(piece + 1);
    MPI_Status st;
    MPI_Sendrecv(out[k].addr, out[k].count, out[k].type, 0, 9, msg.data(),
                 static_cast<int>(msg.size()), MPI_BYTE, 0, 9, MPI_COMM_SELF, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    EXPECT_EQ(static_cast<std::size_t>(n), k + 1 < out.size() ? piece : bytes - head - k * piece);
    got.insert(got.end(), msg.begin(), msg.begin() + n);
    release(out[k]);
  }
  EXPECT_EQ(got, want);

  std::vector<unsigned char> into(src.size(), 0x5a);
  const std::vector<unsigned char> ref = unpacked_reference(p, t, count, 0x5a);
  unpack_head(into.data() + s.before, count, *ti, want.data(), head);
  std::vector<ByteLayout> in = byte_layout_pieces(into.data() + s.before, count, *ti, piece, head);
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::size_t at = head + k * piece;
    const int n = static_cast<int>(std::min(piece, bytes - at));
    MPI_Sendrecv(want.data() + at, n, MPI_BYTE, 0, 10, in[k].addr, in[k].count, in[k].type, 0, 10,
                 MPI_COMM_SELF, MPI_STATUS_IGNORE);
    release(in[k]);
  }
  EXPECT_EQ(into, ref);
}

TEST_F(DatatypeTest, ByteLayoutPiecesCutTheSameBytesInOrder) {
  MPI_Datatype v, res, idx;
  MPI_Type_vector(40, 3, 5, MPI_INT64_T, &v);
  MPI_Type_create_resized(MPI_INT, -4, 12, &res);
  const int lens[3] = {7, 1, 30}, displs[3] = {0, 11, 13};
  MPI_Type_indexed(3, lens, displs, MPI_DOUBLE, &idx);
  for (MPI_Datatype t : {keep(v), keep(res), keep(idx), MPI_DOUBLE, MPI_SHORT_INT}) {
    for (int count : {1, 5, 64}) {
      for (std::size_t piece : {std::size_t{1000}, std::size_t{64}, std::size_t{7}}) {
        SCOPED_TRACE(testing::Message()
                     << "type " << t << " count " << count << " piece " << piece);
        check_byte_layout_pieces(t, count, piece);
      }
    }
  }
}

// A request carries a payload's first bytes, the pieces the rest: heads that end inside a run,
// inside an element and on a run's end.
TEST_F(DatatypeTest, ByteLayoutPiecesAfterAHeadCutTheRest) {
  MPI_Datatype v, res;
  MPI_Type_vector(40, 3, 5, MPI_INT64_T, &v);
  MPI_Type_create_resized(MPI_INT, -4, 12, &res);
  for (MPI_Datatype t : {keep(v), keep(res), MPI_DOUBLE}) {
    for (int count : {1, 5}) {
      for (std::size_t head :
           {std::size_t{1}, std::size_t{13}, std::size_t{24}, std::size_t{500}}) {
        SCOPED_TRACE(testing::Message() << "type " << t << " count " << count << " head " << head);
        check_byte_layout_pieces(t, count, 64, head);
        check_byte_layout_pieces(t, count, 7, head);
      }
    }
  }
}

TEST_F(DatatypeTest, ByteLayoutOfDenseDataIsTheBufferItself) {
  std::vector<double> buf(8);
  ByteLayout l = byte_layout(buf.data(), 8, *info_of(MPI_DOUBLE));
  EXPECT_FALSE(l.owned);
  EXPECT_EQ(l.addr, static_cast<void*>(buf.data()));
  EXPECT_EQ(l.count, 64);
  EXPECT_EQ(l.type, MPI_BYTE);
  release(l);
}

TEST_F(DatatypeTest, BasicTypeFindsAPredefinedEntry) {
  const TypeInfo* i32 = basic_type(Repr::kI32, 4);
  ASSERT_NE(i32, nullptr);
  EXPECT_EQ(i32->repr, Repr::kI32);
  EXPECT_EQ(i32->elem_size, 4u);
  EXPECT_TRUE(i32->predefined);
  const TypeInfo* pair = basic_type(Repr::kPairF64I32, 12);
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->cat, Category::kPair);
  EXPECT_EQ(basic_type(Repr::kI32, 8), nullptr);
}

}  // namespace
}  // namespace osprey::dt
