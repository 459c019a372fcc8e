// The MPI program of osprey-info --check. Each rank puts into and accumulates onto its
// successor's window, reads back what it wrote with a get, and checks every element; rank 0
// prints one line per window flavor with the path osprey reports in the window's info.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"

namespace osprey::info {
namespace {

// Ints per region: [0, kN) receives puts, [kN, 2 kN) accumulates.
constexpr int kN = 1000;
constexpr MPI_Aint kBytes = 2 * kN * sizeof(int);

int put_value(int origin, int i) {
  return (origin + 1) * 100000 + i;
}
int acc_value(int origin, int i) {
  return (origin + 1) * 1000 + 3 * i;
}
int initial_value(int i) {
  return 7 * i;
}

enum class Kind { kAllocate, kAllocateShared, kCreateMalloc, kCreateAllocMem, kDynamic };
constexpr Kind kKinds[] = {Kind::kAllocate, Kind::kAllocateShared, Kind::kCreateMalloc,
                           Kind::kCreateAllocMem, Kind::kDynamic};
static_assert(std::size(kKinds) == kFlavors.size());

struct TestWindow {
  Kind kind;
  MPI_Win win = MPI_WIN_NULL;
  int* mem = nullptr;      // this rank's 2 kN ints
  MPI_Aint next_base = 0;  // the successor's first int (dynamic windows: its address)
  MPI_Aint per_int = 1;    // displacement units per int (dynamic windows count bytes)

  MPI_Aint disp(int index) const { return next_base + index * per_int; }
};

void open_window(TestWindow& w, int next) {
  switch (w.kind) {
    case Kind::kAllocate:
      MPI_Win_allocate(kBytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win);
      break;
    case Kind::kAllocateShared:
      MPI_Win_allocate_shared(kBytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win);
      break;
    case Kind::kCreateMalloc:
      w.mem = static_cast<int*>(std::malloc(kBytes));
      MPI_Win_create(w.mem, kBytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
      break;
    case Kind::kCreateAllocMem:
      MPI_Alloc_mem(kBytes, MPI_INFO_NULL, &w.mem);
      MPI_Win_create(w.mem, kBytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
      break;
    case Kind::kDynamic: {
      MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
      w.mem = static_cast<int*>(std::malloc(kBytes));
      MPI_Win_attach(w.win, w.mem, kBytes);
      int rank = 0, size = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      std::vector<MPI_Aint> bases(static_cast<std::size_t>(size));
      MPI_Get_address(w.mem, &bases[static_cast<std::size_t>(rank)]);
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bases.data(), 1, MPI_AINT, MPI_COMM_WORLD);
      w.next_base = bases[static_cast<std::size_t>(next)];
      w.per_int = sizeof(int);
      break;
    }
  }
}

void close_window(TestWindow& w) {
  if (w.kind == Kind::kDynamic) MPI_Win_detach(w.win, w.mem);
  MPI_Win_free(&w.win);
  if (w.kind == Kind::kCreateMalloc || w.kind == Kind::kDynamic) std::free(w.mem);
  if (w.kind == Kind::kCreateAllocMem) MPI_Free_mem(w.mem);
}

// The first element of `got` that differs from `want(i)`, as a message; empty if none.
template <class Want>
std::string first_mismatch(const char* what, const int* got, Want want) {
  for (int i = 0; i < kN; ++i)
    if (got[i] != want(i))
      return std::string(what) + ": element " + std::to_string(i) + " is " +
             std::to_string(got[i]) + ", expected " + std::to_string(want(i));
  return {};
}

// Puts and accumulates to the successor in a fence epoch, checks what the predecessor left
// here, then gets both regions back from the successor under a shared lock.
std::string round_trip(const TestWindow& w, int rank, int prev, int next) {
  for (int i = 0; i < kN; ++i) {
    w.mem[i] = -1;
    w.mem[kN + i] = initial_value(i);
  }
  std::vector<int> put(kN), acc(kN), got_put(kN), got_acc(kN);
  for (int i = 0; i < kN; ++i) {
    put[static_cast<std::size_t>(i)] = put_value(rank, i);
    acc[static_cast<std::size_t>(i)] = acc_value(rank, i);
  }
  MPI_Win_fence(0, w.win);
  MPI_Put(put.data(), kN, MPI_INT, next, w.disp(0), kN, MPI_INT, w.win);
  MPI_Accumulate(acc.data(), kN, MPI_INT, next, w.disp(kN), kN, MPI_INT, MPI_SUM, w.win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
  std::string wrong = first_mismatch("put", w.mem, [&](int i) { return put_value(prev, i); });
  if (wrong.empty())
    wrong = first_mismatch("accumulate", w.mem + kN,
                           [&](int i) { return initial_value(i) + acc_value(prev, i); });

  MPI_Win_lock(MPI_LOCK_SHARED, next, 0, w.win);
  MPI_Get(got_put.data(), kN, MPI_INT, next, w.disp(0), kN, MPI_INT, w.win);
  MPI_Get(got_acc.data(), kN, MPI_INT, next, w.disp(kN), kN, MPI_INT, w.win);
  MPI_Win_unlock(next, w.win);
  if (wrong.empty())
    wrong = first_mismatch("get", got_put.data(), [&](int i) { return put_value(rank, i); });
  if (wrong.empty())
    wrong = first_mismatch("get of the accumulated region", got_acc.data(),
                           [&](int i) { return initial_value(i) + acc_value(rank, i); });
  MPI_Barrier(MPI_COMM_WORLD);  // nobody frees while another still reads
  return wrong;
}

// A key of the window's info, or "-" when the window has none (a window of the host's RMA).
std::string info_value(MPI_Win win, const char* key) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_Win_get_info(win, &info);
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  return flag ? std::string(value) : std::string("-");
}

}  // namespace

int check_worker() {
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 0, node_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  if (rank == 0) std::printf("%s\tranks\t%d\t%d\n", kWorkerTag, size, node_size);

  int all_ok = 1;
  for (std::size_t f = 0; f < kFlavors.size(); ++f) {
    // A launcher that spreads the ranks over nodes: shared windows cannot exist there.
    if (kKinds[f] == Kind::kAllocateShared && node_size != size) {
      if (rank == 0) std::printf("%s\twindow\t%s\t-\tskipped\t-\n", kWorkerTag, kFlavors[f]);
      continue;
    }
    TestWindow w{kKinds[f]};
    open_window(w, next);
    const std::string wrong = round_trip(w, rank, prev, next);
    if (!wrong.empty())
      std::fprintf(stderr, "osprey-info worker, rank %d, %s: %s\n", rank, kFlavors[f],
                   wrong.c_str());
    int ok = wrong.empty() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all_ok &= ok;
    const std::string path = info_value(w.win, "osprey_path");
    std::string version = info_value(w.win, "osprey_version");
    close_window(w);
    // Served by osprey only if every rank's window is osprey's.
    int served = version != "-" ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &served, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!served) version.assign(1, '-');  // (g++ 12 -O3 warns, wrongly, at = "-": -Wrestrict)
    if (rank == 0) {
      std::printf("%s\twindow\t%s\t%s\t%s\t%s\n", kWorkerTag, kFlavors[f], path.c_str(),
                  ok ? "ok" : "wrong", version.c_str());
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  if (rank == 0) std::printf("%s\tdone\n", kWorkerTag);
  return all_ok ? 0 : 1;
}

}  // namespace osprey::info
