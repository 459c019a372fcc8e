/* Two thousand live windows at once. MPICH 4.0.2 has about 2,046 contexts for communicators
 * and windows together, and each osprey window holds one host window (the anchor handle), so
 * osprey must not spend more: no communicator per window. Every window is used and verified. */
#include "common.h"

enum { NWIN = 2000 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Win* wins = malloc(sizeof(MPI_Win) * NWIN);
  int** bases = malloc(sizeof(int*) * NWIN);
  for (int i = 0; i < NWIN; i++)
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &bases[i],
                            &wins[i]));
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  for (int i = 0; i < NWIN; i++) {
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, wins[i]));
    int v = i * 10 + t_rank;
    MPI_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, wins[i]));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, wins[i]));
    CHECK(*bases[i] == i * 10 + left, "window %d holds %d", i, *bases[i]);
  }
  for (int i = NWIN - 1; i >= 0; i--)
    MPI_OK(MPI_Win_free(&wins[i]));
  /* Windows on many distinct communicators, each freed with its communicator. */
  for (int i = 0; i < 300; i++) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int* b;
    MPI_Win w;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, c, &b, &w));
    MPI_Comm_free(&c);
    MPI_OK(MPI_Win_fence(0, w));
    MPI_OK(MPI_Put(&i, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    MPI_OK(MPI_Win_fence(0, w));
    CHECK(*b == i, "window on dup %d", i);
    MPI_OK(MPI_Win_free(&w));
  }
  free(wins);
  free(bases);
  return t_finish("many_windows");
}
