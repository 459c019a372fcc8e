/* What the RMA benchmarks share: window flavors, option lists and the timed loop.
 * Plain MPI only (no osprey headers), so the same source builds against any MPI. */
#ifndef OSPREY_BENCH_COMMON_H
#define OSPREY_BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int bench_cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static inline double bench_median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A window of `bytes` on every rank in one of the three flavors that can address remote
 * memory (create also over MPI_Alloc_mem memory: "alloc_mem"); `base` is the displacement of the
 * peer's memory (non-zero only for dynamic). */
struct bench_window {
  MPI_Win win;
  char* mem;
  MPI_Aint peer_base;
  int dynamic, allocated, alloc_mem;
};

static inline int bench_window_open(struct bench_window* w, const char* flavor, MPI_Aint bytes,
                                    int peer) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(w, 0, sizeof *w);
  if (!strcmp(flavor, "allocate")) {
    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win);
    w->allocated = 1;
  } else if (!strcmp(flavor, "create")) {
    w->mem = malloc((size_t)bytes);
    MPI_Win_create(w->mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
  } else if (!strcmp(flavor, "alloc_mem")) {
    /* MPI_Win_create over MPI_Alloc_mem memory (node-shared under osprey). */
    MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w->mem);
    w->alloc_mem = 1;
    MPI_Win_create(w->mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
  } else if (!strcmp(flavor, "dynamic")) {
    w->mem = malloc((size_t)bytes);
    w->dynamic = 1;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    MPI_Win_attach(w->win, w->mem, bytes);
    MPI_Aint mine, *all = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Get_address(w->mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    w->peer_base = all[peer];
    free(all);
  } else {
    return -1;
  }
  memset(w->mem, 0, (size_t)bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

static inline void bench_window_close(struct bench_window* w) {
  if (w->dynamic) MPI_Win_detach(w->win, w->mem);
  MPI_Win_free(&w->win);
  if (w->alloc_mem)
    MPI_Free_mem(w->mem);
  else if (!w->allocated)
    free(w->mem);
}

/* "osprey <version>" when osprey answers the window's calls, else "host". */
static inline const char* bench_engine(MPI_Win win) {
  static char name[MPI_MAX_INFO_VAL + 1];
  MPI_Info info;
  int flag = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, "osprey_version", MPI_MAX_INFO_VAL, name, &flag);
  MPI_Info_free(&info);
  return flag ? name : "host";
}

/* Whether `item` is in the comma-separated `list`. */
static inline int bench_listed(const char* list, const char* item) {
  const size_t n = strlen(item);
  for (const char* p = list; p && *p;) {
    const char* end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !strncmp(p, item, n)) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* One command-line option "-x value": kind 's' keeps the string, 'l' a long, 'i' an int,
 * 'm' milliseconds as seconds (double). */
struct bench_option {
  const char* flag;
  char kind;
  void* value;
};

/* Parses argv[1..] against opts; -1 on an unknown flag or a missing value. */
static inline int bench_options(int argc, char** argv, const struct bench_option* opts, int n) {
  for (int i = 1; i < argc; i++) {
    int k = 0;
    while (k < n && strcmp(argv[i], opts[k].flag))
      k++;
    if (k == n || i + 1 >= argc) return -1;
    const char* v = argv[++i];
    switch (opts[k].kind) {
      case 's':
        *(const char**)opts[k].value = v;
        break;
      case 'l':
        *(long*)opts[k].value = atol(v);
        break;
      case 'i':
        *(int*)opts[k].value = atoi(v);
        break;
      default:
        *(double*)opts[k].value = atof(v) * 1e-3;
        break;
    }
  }
  return 0;
}

/* Runs body(ctx, iters) on every rank with the same iteration count: first doubles the count
 * until one run takes a fair share of `seconds` on rank 0, then times `reps` runs of about
 * `seconds` each. Returns rank 0's median seconds per iteration (other ranks: 0). Calibrating
 * by time keeps a whole sweep's length bounded whether one iteration takes 10 ns or 10 ms. */
typedef void (*bench_body)(void* ctx, long iters);

static inline double bench_time(bench_body body, void* ctx, double seconds, int reps,
                                long max_iters) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long iters = 1;
  for (;;) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    body(ctx, iters);
    double t = MPI_Wtime() - t0;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (t >= seconds / 4 || iters >= max_iters) {
      double scaled = t > 0 ? (double)iters * seconds / t : (double)max_iters;
      iters = scaled < 1 ? 1 : scaled > (double)max_iters ? max_iters : (long)scaled;
      break;
    }
    iters *= t < seconds / 64 ? 8 : 2;
    if (iters > max_iters) iters = max_iters;
  }
  double* times = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    body(ctx, iters);
    times[r] = (MPI_Wtime() - t0) / (double)iters;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double med = rank == 0 ? bench_median(times, reps) : 0;
  free(times);
  return med;
}

#endif
