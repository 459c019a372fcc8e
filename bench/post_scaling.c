/* Cost of posting an operation against the number of distinct targets it is spread over:
 * rank 0 holds lock_all and posts batches of 8-byte operations round-robin over k targets
 * (ranks 1..k), then flushes them all. A per-target slot table keeps posting flat in k; a
 * list searched per operation would grow with it. Other ranks only wait in a barrier, which
 * is where a message-path target makes progress.
 *
 *   post_scaling [-o put|acc] [-b batch] [-t ms]
 *
 * Prints for k = 1, 2, 4, ... and k = ranks - 1:
 *   "BENCH post_<op> <k> <nanoseconds per posted operation>" (posting calls only) and
 *   "BENCH post_flush_<op> <k> <microseconds per batch, posting and flush_all>". */
#include <stdint.h>

#include "bench_common.h"

struct posting {
  int acc, rank, targets;
  long batch;
  MPI_Win win;
  int64_t value;
  double post_seconds; /* posting time summed over every call, for the mean per operation */
  long posted;
};

static void body(void* ctx, long iters) {
  struct posting* p = ctx;
  if (p->rank != 0) return;
  for (long it = 0; it < iters; it++) {
    const double t0 = MPI_Wtime();
    for (long i = 0; i < p->batch; i++) {
      const int target = 1 + (int)(i % p->targets);
      const MPI_Aint disp = (MPI_Aint)((i / p->targets) % 64) * 8;
      if (p->acc)
        MPI_Accumulate(&p->value, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM, p->win);
      else
        MPI_Put(&p->value, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, p->win);
    }
    p->post_seconds += MPI_Wtime() - t0;
    p->posted += p->batch;
    MPI_Win_flush_all(p->win);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* op = "put";
  long batch = 64;
  double seconds = 5e-3;
  int bad = size < 2;
  const struct bench_option opts[] = {{"-o", 's', &op}, {"-b", 'l', &batch}, {"-t", 'm', &seconds}};
  if (bench_options(argc, argv, opts, 3) != 0) bad = 1;
  if (bad || (strcmp(op, "put") && strcmp(op, "acc")) || batch < 1) {
    if (rank == 0) fprintf(stderr, "usage: post_scaling [-o put|acc] [-b batch] [-t ms]\n");
    MPI_Finalize();
    return 2;
  }
  struct bench_window w;
  bench_window_open(&w, "allocate", 64 * 8, 0);
  struct posting p = {
      .acc = !strcmp(op, "acc"), .rank = rank, .batch = batch, .win = w.win, .value = 1};
  MPI_Win_lock_all(0, w.win);
  for (int k = 1; k < size; k = k * 2 >= size && k != size - 1 ? size - 1 : k * 2) {
    p.targets = k;
    p.post_seconds = 0;
    p.posted = 0;
    const double t = bench_time(body, &p, seconds, 5, 1L << 16);
    if (rank == 0) {
      printf("BENCH post_%s %d %.2f\n", op, k, p.post_seconds / (double)p.posted * 1e9);
      printf("BENCH post_flush_%s %d %.3f\n", op, k, t * 1e6);
      fflush(stdout);
    }
  }
  MPI_Win_unlock_all(w.win);
  if (rank == 0) printf("ENGINE %s\n", bench_engine(w.win));
  bench_window_close(&w);
  MPI_Finalize();
  return 0;
}
