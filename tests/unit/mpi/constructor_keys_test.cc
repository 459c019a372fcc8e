// The keys the binding makes from a constructor's arguments (datatype/constructor_keys.h) against
// the keys of what the host reports for the type built: equal for every watched constructor and
// argument shape, or a type built like a decoded one would not share its decoding (equal keys
// for different types would be worse, and the host's answers are the reference).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <functional>
#include <vector>

#include "datatype/constructor_keys.h"
#include "datatype/flatten.h"
#include "datatype/type_info.h"

namespace osprey::dt {
namespace {

class ConstructorKeysTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { init_predefined(); }

  // Builds a type with `make`, keys it with `key` and from the host's answers, and frees it.
  void expect_same_key(const std::function<int(MPI_Datatype*)>& make,
                       const std::function<bool(ConstructorKey*)>& key) {
    MPI_Datatype t;
    ASSERT_EQ(make(&t), MPI_SUCCESS);
    ConstructorKey from_args, from_host;
    const bool args_keyed = key(&from_args);
    Contents c = read_contents(t);
    const bool host_keyed = constructor_key(c, &from_host);
    for (MPI_Datatype d : c.types)
      if (!predefined(d)) PMPI_Type_free(&d);
    PMPI_Type_free(&t);
    ASSERT_EQ(args_keyed, host_keyed);
    if (!args_keyed) return;
    EXPECT_EQ(from_args.hash, from_host.hash);
    ASSERT_EQ(from_args.words.size(), from_host.words.size());
    EXPECT_EQ(std::memcmp(from_args.words.data(), from_host.words.data(),
                          from_args.words.size() * sizeof(uint64_t)),
              0);
    ++keyed_;
  }
  int keyed_ = 0;
};

TEST_F(ConstructorKeysTest, VectorsAndContiguous) {
  for (int count : {1, 3, 17})
    for (int len : {1, 4}) {
      for (int stride : {-5, 4, 9}) {
        expect_same_key(
            [&](MPI_Datatype* t) { return PMPI_Type_vector(count, len, stride, MPI_DOUBLE, t); },
            [&](ConstructorKey* k) { return keys::vector(count, len, stride, MPI_DOUBLE, k); });
        const MPI_Aint bytes = stride * 8 + 3;
        expect_same_key(
            [&](MPI_Datatype* t) {
              return PMPI_Type_create_hvector(count, len, bytes, MPI_INT, t);
            },
            [&](ConstructorKey* k) { return keys::hvector(count, len, bytes, MPI_INT, k); });
      }
      expect_same_key([&](MPI_Datatype* t) { return PMPI_Type_contiguous(count, MPI_BYTE, t); },
                      [&](ConstructorKey* k) { return keys::contiguous(count, MPI_BYTE, k); });
    }
  EXPECT_EQ(keyed_, 3 * 2 * 7);
}

TEST_F(ConstructorKeysTest, IndexedFamilies) {
  for (int count : {1, 5, 40}) {  // 40: past the in-place argument lists
    std::vector<int> lens(count), displs(count);
    std::vector<MPI_Aint> bytes(count);
    for (int i = 0; i < count; ++i) {
      lens[i] = 1 + i % 3;
      displs[i] = 7 * i + (i % 2);
      bytes[i] = 24 * i + 5;
    }
    expect_same_key(
        [&](MPI_Datatype* t) {
          return PMPI_Type_indexed(count, lens.data(), displs.data(), MPI_FLOAT, t);
        },
        [&](ConstructorKey* k) {
          return keys::indexed(count, lens.data(), displs.data(), MPI_FLOAT, k);
        });
    expect_same_key(
        [&](MPI_Datatype* t) {
          return PMPI_Type_create_hindexed(count, lens.data(), bytes.data(), MPI_INT64_T, t);
        },
        [&](ConstructorKey* k) {
          return keys::hindexed(count, lens.data(), bytes.data(), MPI_INT64_T, k);
        });
    expect_same_key(
        [&](MPI_Datatype* t) {
          return PMPI_Type_create_indexed_block(count, 2, displs.data(), MPI_SHORT, t);
        },
        [&](ConstructorKey* k) {
          return keys::indexed_block(count, 2, displs.data(), MPI_SHORT, k);
        });
    expect_same_key(
        [&](MPI_Datatype* t) {
          return PMPI_Type_create_hindexed_block(count, 3, bytes.data(), MPI_CHAR, t);
        },
        [&](ConstructorKey* k) {
          return keys::hindexed_block(count, 3, bytes.data(), MPI_CHAR, k);
        });
  }
  EXPECT_EQ(keyed_, 3 * 4);
}

TEST_F(ConstructorKeysTest, StructsSubarraysResized) {
  const int lens[3] = {1, 2, 3};
  const MPI_Aint displs[3] = {0, 8, 24};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  expect_same_key(
      [&](MPI_Datatype* t) { return PMPI_Type_create_struct(3, lens, displs, types, t); },
      [&](ConstructorKey* k) { return keys::structure(3, lens, displs, types, k); });
  for (int order : {MPI_ORDER_C, MPI_ORDER_FORTRAN}) {
    const int sizes[3] = {8, 16, 5}, subs[3] = {4, 3, 5}, starts[3] = {2, 7, 0};
    for (int nd : {1, 2, 3})
      expect_same_key(
          [&](MPI_Datatype* t) {
            return PMPI_Type_create_subarray(nd, sizes, subs, starts, order, MPI_DOUBLE, t);
          },
          [&](ConstructorKey* k) {
            return keys::subarray(nd, sizes, subs, starts, order, MPI_DOUBLE, k);
          });
  }
  expect_same_key([&](MPI_Datatype* t) { return PMPI_Type_create_resized(MPI_INT, -4, 24, t); },
                  [&](ConstructorKey* k) { return keys::resized(MPI_INT, -4, 24, k); });
  EXPECT_EQ(keyed_, 1 + 6 + 1);
}

// A derived argument is keyed on neither side: its handle may be freed and reused.
TEST_F(ConstructorKeysTest, DerivedArgumentsAreNotKeyed) {
  MPI_Datatype inner;
  PMPI_Type_contiguous(2, MPI_INT, &inner);
  const int lens[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 16};
  const MPI_Datatype types[2] = {MPI_INT, inner};
  expect_same_key(
      [&](MPI_Datatype* t) { return PMPI_Type_create_struct(2, lens, displs, types, t); },
      [&](ConstructorKey* k) { return keys::structure(2, lens, displs, types, k); });
  expect_same_key([&](MPI_Datatype* t) { return PMPI_Type_vector(3, 1, 2, inner, t); },
                  [&](ConstructorKey* k) { return keys::vector(3, 1, 2, inner, k); });
  PMPI_Type_free(&inner);
  EXPECT_EQ(keyed_, 0);
}

}  // namespace
}  // namespace osprey::dt
