/* The loop a new user writes first, from issue 12: an allocated window under one lock_all, and
 * per iteration a local store, MPI_Win_sync, a barrier, one operation to the right neighbour
 * completed by MPI_Win_flush, and a second barrier. The operation cycles through put,
 * accumulate, fetch_and_op and compare_and_swap. Every rank works; with more ranks than cores
 * it measures how well the waits (barrier, flush, lock_all) hand the CPU to the rank they
 * wait for.
 *
 *   sync_mix [milliseconds per repetition (20)] [repetitions (5)]
 *
 * Prints "BENCH sync_mix <ranks> <microseconds per iteration>" (median over repetitions).
 * Plain MPI: run it as is for the host's RMA or with osprey preloaded. */
#include <stdint.h>

#include "bench_common.h"

struct mix {
  MPI_Win win;
  int64_t* mem; /* [0]: the local store, [1]: the target of the neighbours' operations */
  int rank, right;
};

static void iterations(void* ctx, long iters) {
  struct mix* m = ctx;
  const int64_t one = 1;
  int64_t got = 0, cmp = 0;
  for (long i = 0; i < iters; i++) {
    m->mem[0] = i;
    MPI_Win_sync(m->win);
    MPI_Barrier(MPI_COMM_WORLD);
    switch (i & 3) {
      case 0:
        MPI_Put(&one, 1, MPI_INT64_T, m->right, 0, 1, MPI_INT64_T, m->win);
        break;
      case 1:
        MPI_Accumulate(&one, 1, MPI_INT64_T, m->right, 1, 1, MPI_INT64_T, MPI_SUM, m->win);
        break;
      case 2:
        MPI_Fetch_and_op(&one, &got, MPI_INT64_T, m->right, 1, MPI_SUM, m->win);
        break;
      default:
        MPI_Compare_and_swap(&one, &cmp, &got, MPI_INT64_T, m->right, 1, m->win);
        break;
    }
    MPI_Win_flush(m->right, m->win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double seconds = (argc > 1 ? atof(argv[1]) : 20) * 1e-3;
  const int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (size < 2 || reps < 1 || seconds <= 0) {
    if (rank == 0) fprintf(stderr, "usage: sync_mix [ms] [reps] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  struct mix m = {.rank = rank, .right = (rank + 1) % size};
  MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &m.mem,
                   &m.win);
  m.mem[0] = m.mem[1] = 0;
  MPI_Win_lock_all(0, m.win);
  /* Untimed warm-up, up to 1 s or 1000 iterations: under MPICH (over UCX) the first few
   * hundred iterations take milliseconds each, which would otherwise be all the short
   * calibration runs see. */
  const double w0 = MPI_Wtime();
  for (int n = 0, done = 0; !done; n += 25) {
    iterations(&m, 25);
    done = n + 25 >= 1000 || MPI_Wtime() - w0 > 1.0;
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  const double t = bench_time(iterations, &m, seconds, reps, 1000000);
  MPI_Win_unlock_all(m.win);
  if (rank == 0) printf("BENCH sync_mix %d %.4f\nENGINE %s\n", size, t * 1e6, bench_engine(m.win));
  MPI_Win_free(&m.win);
  MPI_Finalize();
  return 0;
}
