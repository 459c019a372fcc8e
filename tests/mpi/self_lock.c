/* A rank locks its own window: exclusive self locks protect local loads and stores against
 * other ranks' locked updates; put/get/accumulate to self inside the epoch. */
#include "common.h"

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, 2 * sizeof(int64_t), sizeof(int64_t), MPI_COMM_WORLD))
      continue;
    int64_t* mine = (int64_t*)w.base;
    mine[0] = mine[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const int du = f == T_DYNAMIC ? 1 : 8;
    for (int i = 0; i < 200; i++) {
      /* My own read-modify-write of word 0, by plain loads and stores under a self lock. */
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, w.win));
      mine[0] = mine[0] + 1;
      int64_t v = mine[1] + 1, back;
      MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t_rank, t_disp(&w, t_rank, 8, du), 1, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_flush(t_rank, w.win));
      MPI_OK(
          MPI_Get(&back, 1, MPI_INT64_T, t_rank, t_disp(&w, t_rank, 8, du), 1, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_unlock(t_rank, w.win));
      CHECK(back == v, "%s: self get %lld want %lld", t_flavor_names[f], (long long)back,
            (long long)v);
      /* The neighbour adds to my word 0 under an exclusive lock of my window. */
      const int right = (t_rank + 1) % t_size;
      int64_t one = 1;
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, right, t_disp(&w, right, 0, du), 1, MPI_INT64_T,
                            MPI_SUM, w.win));
      MPI_OK(MPI_Win_unlock(right, w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, w.win));
    CHECK(mine[0] == 400, "%s: word 0 is %lld, want 400 (lost update)", t_flavor_names[f],
          (long long)mine[0]);
    CHECK(mine[1] == 200, "%s: word 1 is %lld", t_flavor_names[f], (long long)mine[1]);
    MPI_OK(MPI_Win_unlock(t_rank, w.win));
    t_win_free(&w);
  }
  return t_finish("self_lock");
}
