/* RMA bandwidth in plain MPI (no osprey headers), in the style of the standard one-sided
 * micro-benchmarks: a window of back-to-back operations of one size, then one
 * synchronization, repeated; rank 0 -> rank 1 (bi-bandwidth: both ways at once).
 *
 *   rma_bw <put|get|put_bi|get_bi> [-s sync] [-f flavor] [-w window] [min max]
 *
 * sync: flush (lock_all + flush, default), lock (lock/unlock per window), fence, pscw
 * flavor: allocate (default), create, dynamic
 * Prints "BENCH <op>_<sync>_<flavor>_bw <bytes> <MB/s>" per size (median of repetitions). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size < 2) {
    if (rank == 0) fprintf(stderr, "usage: rma_bw <put|get|put_bi|get_bi> [-s sync] [-f flavor] [-w window] [min max]\n");
    MPI_Finalize();
    return 2;
  }
  const char* op = argv[1];
  const char* sync = "flush";
  const char* flavor = "allocate";
  int window = 64;
  long min = 1, max = 4 << 20;
  int pos = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) sync = argv[++i];
    else if (!strcmp(argv[i], "-f") && i + 1 < argc) flavor = argv[++i];
    else if (!strcmp(argv[i], "-w") && i + 1 < argc) window = atoi(argv[++i]);
    else if (pos == 0) min = atol(argv[i]), pos++;
    else max = atol(argv[i]);
  }
  const int is_put = !strncmp(op, "put", 3), bi = strstr(op, "_bi") != NULL;
  const int active = rank == 0 || (bi && rank == 1);
  const int peer = rank == 0 ? 1 : 0;
  /* Room for a whole window of the largest messages, so no two land on each other. */
  const long span = max * window > (64L << 20) ? (64L << 20) : max * window;
  char* local = malloc((size_t)span);
  memset(local, rank + 1, (size_t)span);
  char* mem = NULL;
  MPI_Win win;
  MPI_Aint base = 0;
  if (!strcmp(flavor, "create")) {
    mem = malloc((size_t)span);
    MPI_Win_create(mem, span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else if (!strcmp(flavor, "dynamic")) {
    mem = malloc((size_t)span);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, mem, span);
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Aint* all = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    base = all[peer];
    free(all);
  } else {
    MPI_Win_allocate(span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  }
  MPI_Group world, pg;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &peer, &pg);
  const int passive = !strcmp(sync, "flush") || !strcmp(sync, "lock");
  const int reps = 5;
  double t[5];
  if (!strcmp(sync, "flush")) MPI_Win_lock_all(0, win);
  if (!strcmp(sync, "fence")) MPI_Win_fence(0, win);

  for (long n = min; n <= max; n *= 2) {
    const int w = n * window > span ? (int)(span / n) : window;
    /* Enough windows for ~20 ms per repetition at 10 GB/s, at least 4. */
    long iters = (long)(2e8 / ((double)n * w)) + 4;
    if (iters > 2000) iters = 2000;
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (long it = 0; it < iters; it++) {
        if (!strcmp(sync, "lock") && active) MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
        if (!strcmp(sync, "pscw")) {
          if (bi || rank == 1) MPI_Win_post(pg, 0, win);
          if (active) MPI_Win_start(pg, 0, win);
        }
        if (active) {
          for (int k = 0; k < w; k++) {
            if (is_put) MPI_Put(local + (long)k * n, (int)n, MPI_BYTE, peer, base + (long)k * n, (int)n, MPI_BYTE, win);
            else MPI_Get(local + (long)k * n, (int)n, MPI_BYTE, peer, base + (long)k * n, (int)n, MPI_BYTE, win);
          }
        }
        if (!strcmp(sync, "flush") && active) MPI_Win_flush(peer, win);
        if (!strcmp(sync, "lock") && active) MPI_Win_unlock(peer, win);
        if (!strcmp(sync, "fence")) MPI_Win_fence(0, win);
        if (!strcmp(sync, "pscw")) {
          if (active) MPI_Win_complete(win);
          if (bi || rank == 1) MPI_Win_wait(win);
        }
      }
      t[r] = MPI_Wtime() - t0;
      if (passive) MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
      qsort(t, (size_t)reps, sizeof(double), cmp);
      const double bytes = (double)n * w * iters * (bi ? 2 : 1);
      printf("BENCH %s_%s_%s_bw %ld %.2f\n", op, sync, flavor, n, bytes / t[reps / 2] / 1e6);
      fflush(stdout);
    }
  }
  if (!strcmp(sync, "flush")) MPI_Win_unlock_all(win);
  if (!strcmp(sync, "fence")) MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (!strcmp(flavor, "dynamic")) MPI_Win_detach(win, mem);
  MPI_Win_free(&win);
  if (strcmp(flavor, "allocate")) free(mem);
  MPI_Group_free(&pg);
  MPI_Group_free(&world);
  free(local);
  MPI_Finalize();
  return 0;
}
