/* MPI_Win_lock semantics on node-local targets: an exclusive lock excludes every other
 * locker, shared locks coexist, and neither kind starves under a stream of the other. */
#include <time.h>

#include "common.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Word 0: holders (exclusive counts 1000, shared 1). Word 1: stop flag. Word 2: max shared. */
static void exclusion(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, 4 * sizeof(int64_t), sizeof(int64_t), MPI_COMM_WORLD)) return;
  memset(w.base, 0, 4 * sizeof(int64_t));
  MPI_Barrier(MPI_COMM_WORLD);
  const int du = f == T_DYNAMIC ? 1 : 8;
  const MPI_Aint h = t_disp(&w, 0, 0, du), mx = t_disp(&w, 0, 16, du);
  int64_t now_shared; /* an origin buffer: must live until the epoch completes */
  for (int i = 0; i < 200; i++) {
    const int excl = (i + t_rank) % 3 == 0;
    const int64_t delta = excl ? 1000 : 1, minus = -delta;
    int64_t old, v;
    MPI_OK(MPI_Win_lock(excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 0, 0, w.win));
    MPI_OK(MPI_Fetch_and_op(&delta, &old, MPI_INT64_T, 0, h, MPI_SUM, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    if (excl)
      CHECK(old == 0, "%s: exclusive lock shared with %lld", t_flavor_names[f], (long long)old);
    else
      CHECK(old < 1000, "%s: shared lock while exclusive held (%lld)", t_flavor_names[f],
            (long long)old);
    if (!excl) {
      now_shared = old + 1;
      MPI_OK(MPI_Accumulate(&now_shared, 1, MPI_INT64_T, 0, mx, 1, MPI_INT64_T, MPI_MAX, w.win));
    }
    for (int k = 0; k < 5; k++) {
      MPI_OK(MPI_Get(&v, 1, MPI_INT64_T, 0, h, 1, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_flush(0, w.win));
      if (excl)
        CHECK(v == 1000, "%s: someone entered during exclusive (%lld)", t_flavor_names[f],
              (long long)v);
      else
        CHECK(v < 1000, "%s: exclusive entered during shared (%lld)", t_flavor_names[f],
              (long long)v);
    }
    MPI_OK(MPI_Fetch_and_op(&minus, &old, MPI_INT64_T, 0, h, MPI_SUM, w.win));
    MPI_OK(MPI_Win_unlock(0, w.win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    CHECK(((int64_t*)w.base)[0] == 0, "holders left: %lld", (long long)((int64_t*)w.base)[0]);
    if (t_size > 2)
      printf("lock_exclusion: %s: up to %lld shared holders at once\n", t_flavor_names[f],
             (long long)((int64_t*)w.base)[2]);
  }
  t_win_free(&w);
}

/* One rank takes `rounds` locks of one kind while everyone else streams locks of the other
 * kind until told to stop. The lone locker must get through. */
static void starvation(int lone_exclusive) {
  struct t_win w;
  t_win_create(&w, T_ALLOCATE, 2 * sizeof(int64_t), sizeof(int64_t), MPI_COMM_WORLD);
  memset(w.base, 0, 2 * sizeof(int64_t));
  MPI_Barrier(MPI_COMM_WORLD);
  const int lone = t_size - 1, target = 0;
  const int rounds = 100;
  const double t0 = now();
  if (t_rank == lone) {
    for (int i = 0; i < rounds; i++) {
      int64_t one = 1;
      MPI_OK(MPI_Win_lock(lone_exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, w.win));
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, MPI_SUM, w.win));
      MPI_OK(MPI_Win_unlock(target, w.win));
      CHECK(now() - t0 < 30, "lone %s locker starved: %d of %d locks in 30 s",
            lone_exclusive ? "exclusive" : "shared", i, rounds);
    }
    int64_t stop = 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
    MPI_OK(MPI_Accumulate(&stop, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_REPLACE, w.win));
    MPI_OK(MPI_Win_unlock(target, w.win));
  } else {
    int64_t stop = 0, dummy = 0;
    long n = 0;
    while (!stop) {
      MPI_OK(MPI_Win_lock(lone_exclusive ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, target, 0, w.win));
      MPI_OK(MPI_Fetch_and_op(&dummy, &stop, MPI_INT64_T, target, 1, MPI_NO_OP, w.win));
      MPI_OK(MPI_Win_unlock(target, w.win));
      n++;
      CHECK(now() - t0 < 60, "stream never told to stop");
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == target)
    CHECK(((int64_t*)w.base)[0] == rounds, "lone locker's updates: %lld",
          (long long)((int64_t*)w.base)[0]);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    exclusion((enum t_flavor)f);
  starvation(1);
  starvation(0);
  return t_finish("lock_exclusion");
}
