/* Synchronization cost of generalized active target, as in the SCC slides: rank 0 is the
 * origin with all other ranks as targets; no data moves. Times MPI_Win_start,
 * MPI_Win_complete (at the origin) and MPI_Win_post, MPI_Win_wait (at the targets, the
 * slowest target per iteration) separately, plus one whole epoch, and fence for reference.
 *
 *   pscw_sync [iterations] [repetitions]
 *
 * Prints "BENCH <call> <ranks> <microseconds>" (median over repetitions of the mean per
 * iteration). Plain MPI: run it as is for the host's RMA or with osprey preloaded. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 2000;
  const int reps = argc > 2 ? atoi(argv[2]) : 7;
  void* mem;
  MPI_Win win;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Group world, origin, targets;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0;
  MPI_Group_incl(world, 1, &zero, &origin);
  MPI_Group_excl(world, 1, &zero, &targets);

  enum { START, COMPLETE, POST, WAIT, EPOCH, FENCE, N };
  const char* names[N] = {"pscw_start", "pscw_complete", "pscw_post", "pscw_wait", "pscw_epoch", "fence"};
  double* t[N];
  for (int k = 0; k < N; k++) t[k] = calloc((size_t)reps, sizeof(double));
  for (int r = 0; r < reps; r++) {
    double acc[N] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    const double e0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      if (rank == 0) {
        double a = MPI_Wtime();
        MPI_Win_start(targets, 0, win);
        double b = MPI_Wtime();
        MPI_Win_complete(win);
        double c = MPI_Wtime();
        acc[START] += b - a;
        acc[COMPLETE] += c - b;
      } else {
        double a = MPI_Wtime();
        MPI_Win_post(origin, 0, win);
        double b = MPI_Wtime();
        MPI_Win_wait(win);
        double c = MPI_Wtime();
        acc[POST] += b - a;
        acc[WAIT] += c - b;
      }
    }
    acc[EPOCH] = MPI_Wtime() - e0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double f0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Win_fence(0, win);
    acc[FENCE] = MPI_Wtime() - f0;
    double worst[N];
    MPI_Reduce(acc, worst, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++) t[k][r] = worst[k] / iters * 1e6;
  }
  if (rank == 0) {
    for (int k = 0; k < N; k++) {
      qsort(t[k], (size_t)reps, sizeof(double), cmp);
      printf("BENCH %s %d %.4f\n", names[k], size, t[k][reps / 2]);
    }
  }
  MPI_Group_free(&origin);
  MPI_Group_free(&targets);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  for (int k = 0; k < N; k++) free(t[k]);
  MPI_Finalize();
  return 0;
}
