/* Noncontiguous RMA in plain MPI, as a Global Arrays style runtime issues it: rank 0 puts or
 * gets N rows of M doubles, contiguous at the origin, into or out of a 2-D array of N rows of
 * 2M doubles at rank 1, one operation then a flush, under one lock_all. The target layout is a
 * vector, a subarray or an indexed type (rows at uneven offsets), either built, committed and
 * freed around every operation (fresh, as a runtime that builds a type per call does) or
 * built once (reused). With -s the origin's rows may be strided too: `same`, the target's
 * type on both sides (a halo exchange's column type); `strided`, N rows of M doubles out of
 * rows of 3M/2 (a local patch of another array), built alike.
 *
 *   noncontig [-o put,get] [-l vector,subarray,indexed] [-r fresh,reused] [-f flavor]
 *             [-s dense,same,strided] [-z 8x64,32x128,128x256,512x512] [-t ms]
 *
 * flavor: allocate (default), create, dynamic; origin layouts: dense (default)
 * Prints per point "BENCH nc_<op>_<layout>_<fresh|reused>[_same|_strided]_<N>x<M> <data bytes>
 * <us>": the median time of one operation plus its flush over 5 runs. */
#include "bench_common.h"

struct noncontig {
  int is_put, fresh, layout, origin, peer;
  int rows, cols;
  MPI_Aint base;
  double* local;
  MPI_Datatype reused, reused_origin;
  MPI_Win win;
};

enum { kVector, kSubarray, kIndexed };
enum { kDense, kSame, kStrided };

/* The origin's rows of `cols` doubles out of rows of 3 * cols / 2 (kStrided). */
static MPI_Datatype make_origin_type(int rows, int cols) {
  MPI_Datatype t;
  MPI_Type_vector(rows, cols, cols + cols / 2, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

/* The target layout: rows of `cols` doubles out of rows of 2 * cols. */
static MPI_Datatype make_type(int layout, int rows, int cols) {
  MPI_Datatype t;
  const int ld = 2 * cols;
  if (layout == kVector) {
    MPI_Type_vector(rows, cols, ld, MPI_DOUBLE, &t);
  } else if (layout == kSubarray) {
    const int sizes[2] = {rows, ld}, subs[2] = {rows, cols}, starts[2] = {0, cols / 2};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
  } else {
    int* lens = malloc(sizeof(int) * (size_t)rows);
    int* displs = malloc(sizeof(int) * (size_t)rows);
    for (int i = 0; i < rows; i++) {
      lens[i] = cols;
      displs[i] = i * ld + (i % 3) * (cols / 4); /* rows at uneven offsets: no single stride */
    }
    MPI_Type_indexed(rows, lens, displs, MPI_DOUBLE, &t);
    free(lens);
    free(displs);
  }
  MPI_Type_commit(&t);
  return t;
}

static void body(void* ctx, long iters) {
  struct noncontig* b = ctx;
  if (b->peer != 1) return; /* rank 0 is the only origin */
  const int n = b->rows * b->cols;
  for (long it = 0; it < iters; it++) {
    MPI_Datatype t = b->fresh ? make_type(b->layout, b->rows, b->cols) : b->reused;
    MPI_Datatype ot = MPI_DOUBLE;
    int oc = n;
    if (b->origin != kDense) {
      ot = b->origin == kSame ? t
           : b->fresh         ? make_origin_type(b->rows, b->cols)
                              : b->reused_origin;
      oc = 1;
    }
    if (b->is_put)
      MPI_Put(b->local, oc, ot, b->peer, b->base, 1, t, b->win);
    else
      MPI_Get(b->local, oc, ot, b->peer, b->base, 1, t, b->win);
    /* Before the flush: the operation keeps what it needs. */
    if (b->fresh && b->origin == kStrided) MPI_Type_free(&ot);
    if (b->fresh) MPI_Type_free(&t);
    MPI_Win_flush(b->peer, b->win);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *ops = "put,get", *layouts = "vector,subarray,indexed", *reuse = "fresh,reused";
  const char* origins = "dense";
  const char *flavor = "allocate", *shapes = "8x64,32x128,128x256,512x512";
  double seconds = 2e-3;
  int bad = size < 2;
  const struct bench_option opts[] = {
      {"-o", 's', &ops},    {"-l", 's', &layouts}, {"-r", 's', &reuse},  {"-f", 's', &flavor},
      {"-z", 's', &shapes}, {"-t", 'm', &seconds}, {"-s", 's', &origins}};
  if (bench_options(argc, argv, opts, 7) != 0) bad = 1;
  /* The largest shape sizes the window and the origin buffer. */
  long max_rows = 0, max_cols = 0;
  for (const char* p = shapes; p && *p;) {
    long r = 0, c = 0;
    if (sscanf(p, "%ldx%ld", &r, &c) != 2 || r < 1 || c < 4) bad = 1;
    if (r * c > max_rows * max_cols) max_rows = r, max_cols = c;
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  const MPI_Aint span = (MPI_Aint)(max_rows * 2 * max_cols * (long)sizeof(double) + 64);
  const int peer = rank == 0 ? 1 : 0;
  struct bench_window w;
  if (bad || bench_window_open(&w, flavor, bad ? 1 : span, peer) != 0) {
    if (rank == 0)
      fprintf(stderr,
              "usage: noncontig [-o put,get] [-l vector,subarray,indexed] [-r fresh,reused] "
              "[-f allocate|create|dynamic] [-s dense,same,strided] [-z RxC,...] [-t ms] "
              "(2+ ranks, C >= 4)\n");
    MPI_Finalize();
    return 2;
  }
  struct noncontig b = {.peer = peer, .base = w.peer_base, .win = w.win};
  b.local = malloc((size_t)span);
  memset(b.local, rank + 1, (size_t)span);

  const char* const all_ops[] = {"put", "get"};
  const char* const all_layouts[] = {"vector", "subarray", "indexed"};
  const char* const all_reuse[] = {"fresh", "reused"};
  const char* const all_origins[] = {"dense", "same", "strided"};
  const char* const origin_suffix[] = {"", "_same", "_strided"};
  MPI_Win_lock_all(0, w.win);
  for (int o = 0; o < 2; o++) {
    if (!bench_listed(ops, all_ops[o])) continue;
    b.is_put = o == 0;
    for (int l = 0; l < 3; l++) {
      if (!bench_listed(layouts, all_layouts[l])) continue;
      b.layout = l;
      for (int f = 0; f < 2; f++) {
        if (!bench_listed(reuse, all_reuse[f])) continue;
        b.fresh = f == 0;
        for (int s = 0; s < 3; s++) {
          if (!bench_listed(origins, all_origins[s])) continue;
          b.origin = s;
          for (const char* p = shapes; p && *p;) {
            long r = 0, c = 0;
            sscanf(p, "%ldx%ld", &r, &c);
            p = strchr(p, ',');
            p = p ? p + 1 : NULL;
            b.rows = (int)r;
            b.cols = (int)c;
            if (!b.fresh) b.reused = make_type(l, b.rows, b.cols);
            if (!b.fresh && s == kStrided) b.reused_origin = make_origin_type(b.rows, b.cols);
            const double t = bench_time(body, &b, seconds, 5, 1L << 20);
            if (!b.fresh) MPI_Type_free(&b.reused);
            if (!b.fresh && s == kStrided) MPI_Type_free(&b.reused_origin);
            if (rank == 0) {
              printf("BENCH nc_%s_%s_%s%s_%ldx%ld %ld %.3f\n", all_ops[o], all_layouts[l],
                     all_reuse[f], origin_suffix[s], r, c, r * c * (long)sizeof(double), t * 1e6);
              fflush(stdout);
            }
          }
        }
      }
    }
  }
  MPI_Win_unlock_all(w.win);
  if (rank == 0) printf("ENGINE %s\n", bench_engine(w.win));
  bench_window_close(&w);
  free(b.local);
  MPI_Finalize();
  return 0;
}
