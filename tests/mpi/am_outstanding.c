/* Thousands of operations outstanding toward one target before a single flush: puts to
 * distinct places, accumulates to one counter, gets of what was put; every value checked. */
#include "common.h"

enum { OPS = 4000 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, (OPS * t_size + 1) * sizeof(int64_t), 8,
                      MPI_COMM_WORLD))
      continue;
    int64_t* mine = (int64_t*)w.base;
    memset(mine, 0, (size_t)(OPS * t_size + 1) * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    const int du = f == T_DYNAMIC ? 1 : 8, target = 0;
    int64_t* vals = malloc(sizeof(int64_t) * OPS);
    int64_t* back = malloc(sizeof(int64_t) * OPS);
    const int64_t one = 1;
    MPI_OK(MPI_Win_lock_all(0, w.win));
    for (int i = 0; i < OPS; i++) {
      vals[i] = (int64_t)t_rank << 32 | i;
      const MPI_Aint off = (MPI_Aint)(1 + t_rank * OPS + i) * 8;
      MPI_OK(MPI_Put(&vals[i], 1, MPI_INT64_T, target, t_disp(&w, target, off, du), 1, MPI_INT64_T,
                     w.win));
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, target, t_disp(&w, target, 0, du), 1, MPI_INT64_T,
                            MPI_SUM, w.win));
    }
    MPI_OK(MPI_Win_flush(target, w.win));
    for (int i = 0; i < OPS; i++) {
      const MPI_Aint off = (MPI_Aint)(1 + t_rank * OPS + i) * 8;
      MPI_OK(MPI_Get(&back[i], 1, MPI_INT64_T, target, t_disp(&w, target, off, du), 1, MPI_INT64_T,
                     w.win));
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    for (int i = 0; i < OPS; i++)
      CHECK(back[i] == vals[i], "%s: op %d read back %llx", t_flavor_names[f], i,
            (unsigned long long)back[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == target)
      CHECK(mine[0] == (int64_t)OPS * t_size, "%s: counter %lld", t_flavor_names[f],
            (long long)mine[0]);
    free(vals);
    free(back);
    t_win_free(&w);
  }
  return t_finish("am_outstanding");
}
