// Window info hints (rma/hints.h): what Hints::read takes from an info object and what
// write_hints reports back through MPI_Win_get_info.
#include "rma/hints.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <string>

#include "osprey/version.h"

namespace osprey::rma {
namespace {

// An info object built from key/value pairs, freed with the test.
class Info {
 public:
  Info(std::initializer_list<std::pair<const char*, const char*>> kv) {
    MPI_Info_create(&info_);
    for (auto [k, v] : kv)
      MPI_Info_set(info_, k, v);
  }
  ~Info() { MPI_Info_free(&info_); }
  Info(const Info&) = delete;
  Info& operator=(const Info&) = delete;
  operator MPI_Info() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

Hints read(std::initializer_list<std::pair<const char*, const char*>> kv, Hints h = {}) {
  Info info(kv);
  h.read(info);
  return h;
}

// Every key/value of an info object.
std::map<std::string, std::string> contents(MPI_Info info) {
  std::map<std::string, std::string> m;
  int n = 0;
  MPI_Info_get_nkeys(info, &n);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    MPI_Info_get_nthkey(info, i, key);
    int len = 0, flag = 0;
    MPI_Info_get_valuelen(info, key, &len, &flag);
    std::string v(static_cast<size_t>(len) + 1, '\0');
    MPI_Info_get(info, key, len + 1, v.data(), &flag);
    v.resize(static_cast<size_t>(len));
    m[key] = v;
  }
  return m;
}

std::map<std::string, std::string> written(const Hints& h, const char* path) {
  MPI_Info out = MPI_INFO_NULL;
  write_hints(h, path, &out);
  auto m = contents(out);
  MPI_Info_free(&out);
  return m;
}

TEST(Hints, DefaultsAreTheSafeSettings) {
  const Hints h;
  EXPECT_FALSE(h.no_locks);
  EXPECT_EQ(h.ordering, Hints::kAllOrders);
  EXPECT_FALSE(h.same_op);
  EXPECT_FALSE(h.same_size);
  EXPECT_FALSE(h.same_disp_unit);
  EXPECT_FALSE(h.alloc_shared_noncontig);
}

TEST(Hints, InfoNullAndEmptyInfoChangeNothing) {
  Hints h;
  h.no_locks = true;
  h.ordering = Hints::kRaw;
  h.same_op = true;
  h.read(MPI_INFO_NULL);
  EXPECT_TRUE(h.no_locks);
  EXPECT_EQ(h.ordering, Hints::kRaw);
  EXPECT_TRUE(h.same_op);
  const Hints g = read({}, h);
  EXPECT_TRUE(g.no_locks);
  EXPECT_EQ(g.ordering, Hints::kRaw);
  EXPECT_TRUE(g.same_op);
}

TEST(Hints, BooleanKeys) {
  const Hints h = read({{"no_locks", "true"},
                        {"same_size", "true"},
                        {"same_disp_unit", "true"},
                        {"alloc_shared_noncontig", "true"}});
  EXPECT_TRUE(h.no_locks);
  EXPECT_TRUE(h.same_size);
  EXPECT_TRUE(h.same_disp_unit);
  EXPECT_TRUE(h.alloc_shared_noncontig);
  // Values set again later override: "false" clears what an earlier info set.
  const Hints g = read({{"no_locks", "false"},
                        {"same_size", "false"},
                        {"same_disp_unit", "false"},
                        {"alloc_shared_noncontig", "false"}},
                       h);
  EXPECT_FALSE(g.no_locks);
  EXPECT_FALSE(g.same_size);
  EXPECT_FALSE(g.same_disp_unit);
  EXPECT_FALSE(g.alloc_shared_noncontig);
  EXPECT_TRUE(read({{"no_locks", "1"}}).no_locks);
  EXPECT_TRUE(read({{"no_locks", "yes"}}).no_locks);
  EXPECT_FALSE(read({{"no_locks", "0"}}, h).no_locks);
}

TEST(Hints, KeysAbsentKeepTheirValue) {
  Hints h;
  h.same_size = true;
  h.ordering = Hints::kWar;
  const Hints g = read({{"no_locks", "true"}}, h);
  EXPECT_TRUE(g.no_locks);
  EXPECT_TRUE(g.same_size);
  EXPECT_EQ(g.ordering, Hints::kWar);
}

TEST(Hints, AccumulateOrdering) {
  EXPECT_EQ(read({{"accumulate_ordering", "none"}}).ordering, 0);
  EXPECT_EQ(read({{"accumulate_ordering", "rar"}}).ordering, Hints::kRar);
  EXPECT_EQ(read({{"accumulate_ordering", "raw"}}).ordering, Hints::kRaw);
  EXPECT_EQ(read({{"accumulate_ordering", "war"}}).ordering, Hints::kWar);
  EXPECT_EQ(read({{"accumulate_ordering", "waw"}}).ordering, Hints::kWaw);
  EXPECT_EQ(read({{"accumulate_ordering", "rar,waw"}}).ordering, Hints::kRar | Hints::kWaw);
  EXPECT_EQ(read({{"accumulate_ordering", "waw,war,raw,rar"}}).ordering, Hints::kAllOrders);
  EXPECT_EQ(read({{"accumulate_ordering", "raw,raw"}}).ordering, Hints::kRaw);
  // A list replaces the current setting, it does not add to it.
  Hints h;
  h.ordering = Hints::kRar | Hints::kRaw;
  EXPECT_EQ(read({{"accumulate_ordering", "war"}}, h).ordering, Hints::kWar);
  // A list after "none".
  h.ordering = 0;
  EXPECT_EQ(read({{"accumulate_ordering", "waw"}}, h).ordering, Hints::kWaw);
}

TEST(Hints, UnknownOrderingTokenKeepsTheCurrentSetting) {
  Hints h;
  EXPECT_EQ(read({{"accumulate_ordering", "rar,bogus"}}, h).ordering, Hints::kAllOrders);
  h.ordering = Hints::kWaw;
  EXPECT_EQ(read({{"accumulate_ordering", "fast"}}, h).ordering, Hints::kWaw);
  EXPECT_EQ(read({{"accumulate_ordering", "none,rar"}}, h).ordering, Hints::kWaw);
}

TEST(Hints, AccumulateOps) {
  EXPECT_TRUE(read({{"accumulate_ops", "same_op"}}).same_op);
  Hints h;
  h.same_op = true;
  EXPECT_FALSE(read({{"accumulate_ops", "same_op_no_op"}}, h).same_op);
  // An unknown value is ignored rather than taken as either setting.
  EXPECT_TRUE(read({{"accumulate_ops", "whatever"}}, h).same_op);
  EXPECT_FALSE(read({{"accumulate_ops", "whatever"}}).same_op);
}

TEST(Hints, UnrelatedKeysAreIgnored) {
  const Hints h = read({{"mpi_assert_no_any_tag", "true"}, {"osprey_path", "shm"}});
  EXPECT_FALSE(h.no_locks);
  EXPECT_EQ(h.ordering, Hints::kAllOrders);
}

TEST(Hints, WriteEchoesDefaults) {
  const auto m = written(Hints{}, "shm");
  const std::map<std::string, std::string> want = {
      {"no_locks", "false"},
      {"accumulate_ordering", "rar,raw,war,waw"},
      {"accumulate_ops", "same_op_no_op"},
      {"same_size", "false"},
      {"same_disp_unit", "false"},
      {"alloc_shared_noncontig", "false"},
      {"osprey_version", OSPREY_VERSION_STRING},
      {"osprey_path", "shm"},
  };
  EXPECT_EQ(m, want);
}

TEST(Hints, WriteEchoesEverySetting) {
  Hints h;
  h.no_locks = true;
  h.ordering = Hints::kRaw | Hints::kWaw;
  h.same_op = true;
  h.same_size = true;
  h.same_disp_unit = true;
  h.alloc_shared_noncontig = true;
  auto m = written(h, "shm+am");
  EXPECT_EQ(m["no_locks"], "true");
  EXPECT_EQ(m["accumulate_ordering"], "raw,waw");
  EXPECT_EQ(m["accumulate_ops"], "same_op");
  EXPECT_EQ(m["same_size"], "true");
  EXPECT_EQ(m["same_disp_unit"], "true");
  EXPECT_EQ(m["alloc_shared_noncontig"], "true");
  EXPECT_EQ(m["osprey_path"], "shm+am");
  EXPECT_EQ(m["osprey_version"], OSPREY_VERSION_STRING);
  h.ordering = 0;
  EXPECT_EQ(written(h, "am")["accumulate_ordering"], "none");
}

TEST(Hints, WrittenInfoReadsBackToTheSameHints) {
  // get_info output passed to a new window must mean the same hints.
  for (uint8_t ordering = 0; ordering <= Hints::kAllOrders; ++ordering) {
    Hints h;
    h.ordering = ordering;
    h.no_locks = ordering & 1;
    h.same_op = ordering & 2;
    h.same_size = ordering & 4;
    h.same_disp_unit = ordering & 8;
    h.alloc_shared_noncontig = !(ordering & 1);
    MPI_Info out = MPI_INFO_NULL;
    write_hints(h, "am", &out);
    Hints g;
    g.read(out);
    MPI_Info_free(&out);
    SCOPED_TRACE(static_cast<int>(ordering));
    EXPECT_EQ(g.ordering, h.ordering);
    EXPECT_EQ(g.no_locks, h.no_locks);
    EXPECT_EQ(g.same_op, h.same_op);
    EXPECT_EQ(g.same_size, h.same_size);
    EXPECT_EQ(g.same_disp_unit, h.same_disp_unit);
    EXPECT_EQ(g.alloc_shared_noncontig, h.alloc_shared_noncontig);
  }
}

}  // namespace
}  // namespace osprey::rma
