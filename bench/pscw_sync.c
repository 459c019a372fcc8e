/* Synchronization cost of generalized active target, as in the SCC slides: rank 0 is the
 * origin with all other ranks as targets; no data moves. Times MPI_Win_start,
 * MPI_Win_complete (at the origin) and MPI_Win_post, MPI_Win_wait (at the targets, the
 * slowest target per iteration) separately, plus one whole epoch, and fence for reference.
 *
 *   pscw_sync [milliseconds per repetition (20)] [repetitions (7)]
 *
 * Prints "BENCH <call> <ranks> <microseconds>" (median over repetitions of the mean per
 * iteration). Plain MPI: run it as is for the host's RMA or with osprey preloaded. */
#include "bench_common.h"

enum { START, COMPLETE, POST, WAIT, EPOCH, FENCE, N };

struct epoch {
  MPI_Win win;
  MPI_Group origin, targets;
  double acc[N]; /* seconds spent in each call, summed */
};

static void epochs(void* ctx, long iters) {
  struct epoch* e = ctx;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (long i = 0; i < iters; i++) {
    const double a = MPI_Wtime();
    if (rank == 0)
      MPI_Win_start(e->targets, 0, e->win);
    else
      MPI_Win_post(e->origin, 0, e->win);
    const double b = MPI_Wtime();
    if (rank == 0)
      MPI_Win_complete(e->win);
    else
      MPI_Win_wait(e->win);
    const double c = MPI_Wtime();
    e->acc[rank == 0 ? START : POST] += b - a;
    e->acc[rank == 0 ? COMPLETE : WAIT] += c - b;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double seconds = (argc > 1 ? atof(argv[1]) : 20) * 1e-3;
  const int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (size < 2 || reps < 1 || seconds <= 0) {
    if (rank == 0) fprintf(stderr, "usage: pscw_sync [ms] [reps] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  void* mem;
  struct epoch ctx = {0};
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &ctx.win);
  MPI_Win win = ctx.win;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0;
  MPI_Group_incl(world, 1, &zero, &ctx.origin);
  MPI_Group_excl(world, 1, &zero, &ctx.targets);
  MPI_Group origin = ctx.origin, targets = ctx.targets;
  /* Iterations for about `seconds` per repetition, so that oversubscribed runs stay short. */
  double per_epoch = bench_time(epochs, &ctx, seconds / 4, 1, 100000);
  MPI_Bcast(&per_epoch, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  long iters = (long)(seconds / per_epoch);
  if (iters < 3) iters = 3;

  const char* names[N] = {"pscw_start", "pscw_complete", "pscw_post",
                          "pscw_wait",  "pscw_epoch",    "fence"};
  double* t[N];
  for (int k = 0; k < N; k++)
    t[k] = calloc((size_t)reps, sizeof(double));
  for (int r = 0; r < reps; r++) {
    double* acc = ctx.acc;
    memset(acc, 0, sizeof ctx.acc);
    MPI_Barrier(MPI_COMM_WORLD);
    const double e0 = MPI_Wtime();
    epochs(&ctx, iters);
    acc[EPOCH] = MPI_Wtime() - e0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double f0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
      MPI_Win_fence(0, win);
    acc[FENCE] = MPI_Wtime() - f0;
    double worst[N];
    MPI_Reduce(acc, worst, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++)
      t[k][r] = worst[k] / iters * 1e6;
  }
  if (rank == 0) {
    for (int k = 0; k < N; k++) {
      printf("BENCH %s %d %.4f\n", names[k], size, bench_median(t[k], reps));
    }
  }
  MPI_Group_free(&origin);
  MPI_Group_free(&targets);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  for (int k = 0; k < N; k++)
    free(t[k]);
  MPI_Finalize();
  return 0;
}
