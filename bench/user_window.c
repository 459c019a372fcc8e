/* A window over user memory, used as a new user would (issue 12, item 2): a 2 MiB array from
 * malloc exposed with MPI_Win_create, rank 0 running exclusive lock / one operation / unlock
 * toward rank 1 for get, put and an int sum accumulate, from 8 B to 2 MiB, `iters` times per
 * size and operation; other ranks wait in a barrier. Rank 1's array is checked at the end (the
 * accumulates' sum). Plain MPI: run it as is for the host's RMA or with osprey preloaded.
 *
 *   user_window [iterations per size (10)]
 *
 * Prints "BENCH user_window <iterations> <seconds for the whole loop>" and exits non-zero if
 * the target's data is wrong. */
#include <stdint.h>

#include "bench_common.h"

enum { BYTES = 2 << 20 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iters = argc > 1 ? atol(argv[1]) : 10;
  if (size < 2 || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: user_window [iterations per size] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  int* mem = malloc(BYTES);
  int* local = malloc(BYTES);
  for (int i = 0; i < BYTES / 4; i++) {
    mem[i] = 0;
    local[i] = 1;
  }
  MPI_Win win;
  MPI_Win_create(mem, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank == 0) {
    for (int n = 8; n <= BYTES; n *= 2) {
      for (long it = 0; it < iters; it++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Get(local, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        for (int i = 0; i < n / 4; i++)
          local[i] = 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(local, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Accumulate(local, n / 4, MPI_INT, 1, 0, n / 4, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(1, win);
      }
    }
  }
  const double t = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  int bad = 0;
  if (rank == 1) {
    /* The last size's iterations: each put wrote 1, then an accumulate added 1. */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < BYTES / 4 && !bad; i++)
      if (mem[i] != 2) {
        fprintf(stderr, "user_window: int %d of the target is %d, want 2\n", i, mem[i]);
        bad = 1;
      }
    MPI_Win_unlock(1, win);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("BENCH user_window %ld %.4f\n", iters, t);
    printf("ENGINE %s\n", bench_engine(win));
  }
  MPI_Win_free(&win);
  free(mem);
  free(local);
  MPI_Finalize();
  return bad;
}
