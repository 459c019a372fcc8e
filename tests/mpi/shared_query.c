/* MPI_Win_allocate_shared: contiguous layout by default, alloc_shared_noncontig honoured,
 * MPI_Win_shared_query for every rank and MPI_PROC_NULL, and direct load/store into the
 * neighbours' memory synchronized by fence and by MPI_Win_sync + barrier. */
#include "common.h"

static void run(int noncontig) {
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
  }
  /* Rank r allocates (r % 3) * 24 + 8 ints; rank 1 allocates nothing when there are 3 ranks. */
  const int mine_n = (t_size == 3 && t_rank == 1) ? 0 : (t_rank % 3) * 24 + 8;
  int* mine;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate_shared((MPI_Aint)mine_n * (MPI_Aint)sizeof(int), sizeof(int), info,
                                 MPI_COMM_WORLD, &mine, &win));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);

  int** ptr = malloc(sizeof(int*) * (size_t)t_size);
  MPI_Aint* sz = malloc(sizeof(MPI_Aint) * (size_t)t_size);
  for (int r = 0; r < t_size; r++) {
    int du = 0;
    MPI_OK(MPI_Win_shared_query(win, r, &sz[r], &du, &ptr[r]));
    const int n = (t_size == 3 && r == 1) ? 0 : (r % 3) * 24 + 8;
    CHECK(sz[r] == n * (MPI_Aint)sizeof(int), "size of rank %d: %ld", r, (long)sz[r]);
    CHECK(du == (int)sizeof(int), "disp unit %d", du);
    if (r == t_rank && n > 0) CHECK(ptr[r] == mine, "own base differs");
  }
  if (!noncontig)
    for (int r = 1; r < t_size; r++)
      CHECK((char*)ptr[r] == (char*)ptr[r - 1] + sz[r - 1], "rank %d not contiguous", r);
  if (noncontig)
    for (int r = 0; r < t_size; r++)
      CHECK(((uintptr_t)ptr[r] % 4096) == 0, "noncontig segment of %d not page aligned", r);
  {
    MPI_Aint s;
    int du;
    int* p;
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &s, &du, &p));
    CHECK(s == sz[0] && p == ptr[0], "MPI_PROC_NULL query should give rank 0's segment");
  }

  /* Epoch 1: every rank stores into its right neighbour's segment directly. */
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  for (int round = 0; round < 50; round++) {
    MPI_OK(MPI_Win_fence(0, win));
    const int n = (int)(sz[right] / (MPI_Aint)sizeof(int));
    for (int i = 0; i < n; i++)
      ptr[right][i] = round * 100000 + t_rank * 1000 + i;
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < mine_n; i++)
      CHECK(mine[i] == round * 100000 + left * 1000 + i, "round %d: word %d is %d", round, i,
            mine[i]);
  }
  /* Passive-style: MPI_Win_sync + barrier around direct stores. */
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  MPI_OK(MPI_Win_free(&win));
  free(ptr);
  free(sz);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  run(0);
  run(1);
  return t_finish("shared_query");
}
