/* Zero-size windows everywhere and on some ranks, NULL and MPI_BOTTOM bases, zero-count
 * operations, and puts/gets to the ranks that do have memory. */
#include "common.h"

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    /* All ranks zero. */
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, 0, 1, MPI_COMM_WORLD)) continue;
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_fence(0, w.win));
    int v = 3;
    MPI_OK(MPI_Put(&v, 0, MPI_INT, (t_rank + 1) % t_size, 0, 0, MPI_INT, w.win));
    MPI_OK(MPI_Get(&v, 0, MPI_INT, t_rank, 0, 0, MPI_INT, w.win));
    if (f != T_DYNAMIC)
      EXPECT_CLASS(MPI_ERR_RMA_RANGE,
                   MPI_Put(&v, 1, MPI_INT, (t_rank + 1) % t_size, 0, 1, MPI_INT, w.win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    t_win_free(&w);
    CHECK(v == 3, "zero-count get wrote");
  }
  /* MPI_Win_create with a NULL base and size 0, and MPI_BOTTOM. */
  {
    MPI_Win win;
    MPI_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Win_create(MPI_BOTTOM, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_free(&win));
  }
  /* Only even ranks have memory; odd ranks put into them. */
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    const MPI_Aint bytes = t_rank % 2 == 0 ? 8 * (MPI_Aint)sizeof(int) * t_size : 0;
    if (!t_win_create(&w, (enum t_flavor)f, bytes, sizeof(int), MPI_COMM_WORLD)) continue;
    const int du = f == T_DYNAMIC ? 1 : (int)sizeof(int);
    MPI_OK(MPI_Win_fence(0, w.win));
    int out[8];
    for (int i = 0; i < 8; i++)
      out[i] = t_rank * 100 + i;
    for (int t = 0; t < t_size; t += 2) {
      MPI_Aint off = (MPI_Aint)t_rank * 8 * (MPI_Aint)sizeof(int);
      MPI_OK(MPI_Put(out, 8, MPI_INT, t, f == T_DYNAMIC ? t_disp(&w, t, off, 1) : off / du, 8,
                     MPI_INT, w.win));
    }
    MPI_OK(MPI_Win_fence(0, w.win));
    if (t_rank % 2 == 0)
      for (int o = 0; o < t_size; o++)
        for (int i = 0; i < 8; i++)
          CHECK(((int*)w.base)[o * 8 + i] == o * 100 + i, "%s: from %d word %d", t_flavor_names[f],
                o, i);
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    t_win_free(&w);
  }
  return t_finish("zero_size");
}
