/* RMA bandwidth and message rate in plain MPI, in the style of the standard one-sided
 * micro-benchmarks: a window of back-to-back operations of one size, then one
 * synchronization, repeated; rank 0 -> rank 1 (bi-bandwidth: both ways at once). Operations
 * of one window go to distinct target addresses.
 *
 *   rma_bw [-o ops] [-s sync] [-f flavor] [-w window] [-m min] [-M max] [-S span] [-t ms]
 *
 * ops:    comma list of put, get, put_bi, get_bi (default all four)
 * sync:   flush (one lock_all around the sweep, flush per window; default), lock (shared
 *         lock/unlock per window), lock_all (per window), fence, pscw
 * flavor: allocate (default), create, dynamic, alloc_mem (create over MPI_Alloc_mem memory)
 * sizes:  min (1) to max (4 MiB) bytes in powers of two; window (64) operations, fewer when
 *         a window would exceed span (16 MiB) bytes
 * Prints per point "BENCH bw_<op>_<sync>_<flavor> <bytes> <MB/s>" and, up to 1 KiB,
 * "BENCH rate_<op>_<sync>_<flavor> <bytes> <million operations/s>": medians of 5 runs. */
#include "bench_common.h"

struct bandwidth {
  const char* sync;
  int is_put, bi, rank, peer, active, passive_target;
  long n, window;
  MPI_Aint base;
  char* local;
  MPI_Win win;
  MPI_Group peer_group;
};

static void body(void* ctx, long iters) {
  const struct bandwidth* b = ctx;
  const char* s = b->sync;
  const int lock = !strcmp(s, "lock"), lock_all = !strcmp(s, "lock_all"), pscw = !strcmp(s, "pscw");
  for (long it = 0; it < iters; it++) {
    if (pscw && b->passive_target) MPI_Win_post(b->peer_group, 0, b->win);
    if (b->active) {
      if (lock) MPI_Win_lock(MPI_LOCK_SHARED, b->peer, 0, b->win);
      if (lock_all) MPI_Win_lock_all(0, b->win);
      if (pscw) MPI_Win_start(b->peer_group, 0, b->win);
      for (long k = 0; k < b->window; k++) {
        char* buf = b->local + k * b->n;
        const MPI_Aint disp = b->base + k * b->n;
        const int n = (int)b->n;
        if (b->is_put)
          MPI_Put(buf, n, MPI_BYTE, b->peer, disp, n, MPI_BYTE, b->win);
        else
          MPI_Get(buf, n, MPI_BYTE, b->peer, disp, n, MPI_BYTE, b->win);
      }
      if (!strcmp(s, "flush")) MPI_Win_flush(b->peer, b->win);
      if (lock) MPI_Win_unlock(b->peer, b->win);
      if (lock_all) MPI_Win_unlock_all(b->win);
      if (pscw) MPI_Win_complete(b->win);
    }
    if (!strcmp(s, "fence")) MPI_Win_fence(0, b->win);
    if (pscw && b->passive_target) MPI_Win_wait(b->win);
  }
  /* Both ways under passive synchronization the ranks run apart: rank 0's clock stops only
   * after rank 1's windows too, which the count of operations includes. */
  if (b->bi && !pscw && strcmp(s, "fence")) MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *ops = "put,get,put_bi,get_bi", *sync = "flush", *flavor = "allocate";
  long window = 64, min = 1, max = 4 << 20, span = 16 << 20;
  double seconds = 2e-3;
  int bad = size < 2;
  const struct bench_option opts[] = {
      {"-o", 's', &ops}, {"-s", 's', &sync}, {"-f", 's', &flavor}, {"-w", 'l', &window},
      {"-m", 'l', &min}, {"-M", 'l', &max},  {"-S", 'l', &span},   {"-t", 'm', &seconds}};
  if (bench_options(argc, argv, opts, 8) != 0) bad = 1;
  const char* syncs = "flush,lock,lock_all,fence,pscw";
  if (!bench_listed(syncs, sync) || min < 1 || max < min || window < 1) bad = 1;
  if (span < max) span = max;
  const int peer = rank == 0 ? 1 : 0;
  struct bench_window w;
  if (bad || bench_window_open(&w, flavor, span, peer) != 0) {
    if (rank == 0)
      fprintf(stderr,
              "usage: rma_bw [-o put,get,put_bi,get_bi] [-s %s] "
              "[-f allocate|create|dynamic|alloc_mem] [-w window] [-m min] [-M max] [-S span] "
              "[-t ms] (2+ ranks)\n",
              syncs);
    MPI_Finalize();
    return 2;
  }
  struct bandwidth b = {
      .sync = sync, .rank = rank, .peer = peer, .base = w.peer_base, .win = w.win};
  b.local = malloc((size_t)span);
  memset(b.local, rank + 1, (size_t)span);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &peer, &b.peer_group);

  const char* const all_ops[] = {"put", "get", "put_bi", "get_bi"};
  for (int o = 0; o < 4; o++) {
    if (!bench_listed(ops, all_ops[o])) continue;
    b.is_put = all_ops[o][0] == 'p';
    b.bi = strstr(all_ops[o], "_bi") != NULL;
    b.active = rank == 0 || (b.bi && rank == 1);
    b.passive_target = rank == 1 || (b.bi && rank == 0);
    if (!strcmp(sync, "flush")) MPI_Win_lock_all(0, w.win);
    if (!strcmp(sync, "fence")) MPI_Win_fence(0, w.win);
    for (long n = min; n <= max; n *= 2) {
      b.n = n;
      b.window = n * window > span ? span / n : window;
      const double t = bench_time(body, &b, seconds, 5, 1L << 20);
      if (rank == 0) {
        const double ops_per_s = (double)b.window * (b.bi ? 2 : 1) / t;
        printf("BENCH bw_%s_%s_%s %ld %.2f\n", all_ops[o], sync, flavor, n, ops_per_s * n / 1e6);
        if (n <= 1024)
          printf("BENCH rate_%s_%s_%s %ld %.4f\n", all_ops[o], sync, flavor, n, ops_per_s / 1e6);
        fflush(stdout);
      }
    }
    if (!strcmp(sync, "flush")) MPI_Win_unlock_all(w.win);
    if (!strcmp(sync, "fence")) MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
  }
  if (rank == 0) printf("ENGINE %s\n", bench_engine(w.win));
  MPI_Group_free(&b.peer_group);
  MPI_Group_free(&world);
  bench_window_close(&w);
  free(b.local);
  MPI_Finalize();
  return 0;
}
