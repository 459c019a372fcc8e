/* One counter updated by origins on both paths at once: on mixed windows (simulated nodes) with
 * three ranks, rank 2 shares memory with rank 0 (CPU atomics) while rank 1 sends messages
 * (applied by rank 0 with the same atomics). Totals must be exact, for every update form; on
 * mixed windows the window must really use both paths. */
#include "common.h"

enum { N = 3000 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const int mixed = !t_one_node(MPI_COMM_WORLD);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, 4 * sizeof(int64_t), 8, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    memset(mine, 0, 4 * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    const int du = f == T_DYNAMIC ? 1 : 8;
    const int64_t one = 1;
    MPI_OK(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < N; i++) {
      int64_t old, cur, next;
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, t_disp(&w, 0, 0, du), 1, MPI_INT64_T, MPI_SUM,
                            w.win));
      MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, t_disp(&w, 0, 8, du), MPI_SUM, w.win));
      MPI_OK(MPI_Win_flush(0, w.win));
      /* A compare-and-swap increment loop on a third word. */
      MPI_OK(MPI_Fetch_and_op(&one, &cur, MPI_INT64_T, 0, t_disp(&w, 0, 16, du), MPI_NO_OP, w.win));
      MPI_OK(MPI_Win_flush(0, w.win));
      for (;;) {
        next = cur + 1;
        MPI_OK(
            MPI_Compare_and_swap(&next, &cur, &old, MPI_INT64_T, 0, t_disp(&w, 0, 16, du), w.win));
        MPI_OK(MPI_Win_flush(0, w.win));
        if (old == cur) break;
        cur = old;
      }
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
      for (int k = 0; k < 3; k++)
        CHECK(mine[k] == (int64_t)N * t_size, "%s: word %d is %lld, want %lld (lost update)",
              t_flavor_names[f], k, (long long)mine[k], (long long)N * t_size);
      char path[MPI_MAX_INFO_VAL + 1];
      CHECK(t_win_path(w.win, path), "no osprey_path in the window's info");
      if (mixed) CHECK(strstr(path, "shm") && strstr(path, "am"), "mixed window path %s", path);
    }
    t_win_free(&w);
  }
  return t_finish("am_mixed_counter");
}
