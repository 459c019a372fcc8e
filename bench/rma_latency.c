/* RMA latency in plain MPI, in the style of the standard one-sided micro-benchmarks: rank 0
 * issues one operation to rank 1 and completes it with the chosen synchronization, over and
 * over; other ranks only take part in collective synchronization. The same binary measures the
 * host MPI's RMA, or osprey's when osprey is preloaded.
 *
 *   rma_latency [-f flavor] [-s sync] [-o ops] [-m min] [-M max] [-t ms] [-r reps]
 *
 * flavor: allocate (default), create, dynamic, alloc_mem (create over MPI_Alloc_mem memory)
 * sync:   flush (one lock_all around the sweep, flush after each operation; default),
 *         lock (exclusive lock/unlock around each operation), lock_all (lock_all/unlock_all
 *         around each), fence (a fence after each), pscw (start/complete at the origin around
 *         each, post/wait at the target)
 * ops:    comma list of put, get, acc, getacc (MPI_SUM on int64), fop, cas (8 bytes), and
 *         sync (the synchronization alone); default put,get,acc,getacc,fop,cas,sync
 * sizes:  put and get from min (1) to max (1 MiB) bytes in powers of two, acc and getacc
 *         from 8 bytes
 * Prints "BENCH lat_<op>_<sync>_<flavor> <bytes> <microseconds>" per point, each the median
 * of reps (5) runs of about ms (2) milliseconds, then "ENGINE <name>". */
#include <stdint.h>

#include "bench_common.h"

enum op { PUT, GET, ACC, GETACC, FOP, CAS, SYNC, NOPS };
static const char* const op_names[NOPS] = {"put", "get", "acc", "getacc", "fop", "cas", "sync"};

struct latency {
  enum op op;
  const char* sync;
  int rank;
  int count; /* bytes for put/get, int64 elements for the others */
  MPI_Aint disp;
  MPI_Win win;
  MPI_Group origin, target;
  int64_t *src, *dst, *cmp;
};

static void issue(const struct latency* l) {
  const MPI_Aint d = l->disp;
  switch (l->op) {
    case PUT:
      MPI_Put(l->src, l->count, MPI_BYTE, 1, d, l->count, MPI_BYTE, l->win);
      break;
    case GET:
      MPI_Get(l->dst, l->count, MPI_BYTE, 1, d, l->count, MPI_BYTE, l->win);
      break;
    case ACC:
      MPI_Accumulate(l->src, l->count, MPI_INT64_T, 1, d, l->count, MPI_INT64_T, MPI_SUM, l->win);
      break;
    case GETACC:
      MPI_Get_accumulate(l->src, l->count, MPI_INT64_T, l->dst, l->count, MPI_INT64_T, 1, d,
                         l->count, MPI_INT64_T, MPI_SUM, l->win);
      break;
    case FOP:
      MPI_Fetch_and_op(l->src, l->dst, MPI_INT64_T, 1, d, MPI_SUM, l->win);
      break;
    case CAS:
      MPI_Compare_and_swap(l->src, l->cmp, l->dst, MPI_INT64_T, 1, d, l->win);
      break;
    default:
      break;
  }
}

static void body(void* ctx, long iters) {
  const struct latency* l = ctx;
  const char* s = l->sync;
  for (long i = 0; i < iters; i++) {
    if (!strcmp(s, "fence")) {
      if (l->rank == 0) issue(l);
      MPI_Win_fence(0, l->win);
    } else if (!strcmp(s, "pscw")) {
      if (l->rank == 0) {
        MPI_Win_start(l->target, 0, l->win);
        issue(l);
        MPI_Win_complete(l->win);
      } else if (l->rank == 1) {
        MPI_Win_post(l->origin, 0, l->win);
        MPI_Win_wait(l->win);
      }
    } else if (l->rank == 0) {
      if (!strcmp(s, "lock")) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, l->win);
      if (!strcmp(s, "lock_all")) MPI_Win_lock_all(0, l->win);
      issue(l);
      if (!strcmp(s, "flush")) MPI_Win_flush(1, l->win);
      if (!strcmp(s, "lock")) MPI_Win_unlock(1, l->win);
      if (!strcmp(s, "lock_all")) MPI_Win_unlock_all(l->win);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *flavor = "allocate", *sync = "flush", *ops = "put,get,acc,getacc,fop,cas,sync";
  long min = 1, max = 1 << 20;
  double seconds = 2e-3;
  int reps = 5, bad = size < 2;
  const struct bench_option opts[] = {
      {"-f", 's', &flavor}, {"-s", 's', &sync},    {"-o", 's', &ops}, {"-m", 'l', &min},
      {"-M", 'l', &max},    {"-t", 'm', &seconds}, {"-r", 'i', &reps}};
  if (bench_options(argc, argv, opts, 7) != 0) bad = 1;
  const char* syncs = "flush,lock,lock_all,fence,pscw";
  if (!bench_listed(syncs, sync) || min < 1 || max < min || reps < 1) bad = 1;
  struct bench_window w;
  if (bad || bench_window_open(&w, flavor, max < 8 ? 8 : max, 1) != 0) {
    if (rank == 0)
      fprintf(stderr,
              "usage: rma_latency [-f allocate|create|dynamic|alloc_mem] [-s %s] [-o ops] "
              "[-m min] [-M max] [-t ms] [-r reps] (2+ ranks)\n",
              syncs);
    MPI_Finalize();
    return 2;
  }
  struct latency l = {.sync = sync, .rank = rank, .disp = w.peer_base, .win = w.win};
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0, one = 1;
  MPI_Group_incl(world, 1, &zero, &l.origin);
  MPI_Group_incl(world, 1, &one, &l.target);
  l.src = calloc((size_t)max / 8 + 1, 8);
  l.dst = calloc((size_t)max / 8 + 1, 8);
  l.cmp = calloc(1, 8);

  for (int o = 0; o < NOPS; o++) {
    if (!bench_listed(ops, op_names[o])) continue;
    l.op = (enum op)o;
    const int elements = o == ACC || o == GETACC;
    const long lo = o == SYNC ? 0 : o == FOP || o == CAS ? 8 : elements && min < 8 ? 8 : min;
    const long hi = o == SYNC ? 0 : o == FOP || o == CAS ? 8 : max;
    if (!strcmp(sync, "flush")) MPI_Win_lock_all(0, w.win);
    if (!strcmp(sync, "fence")) MPI_Win_fence(0, w.win);
    for (long n = lo; n <= hi; n = n ? n * 2 : 1) {
      l.count = elements ? (int)(n / 8) : (int)n;
      const double t = bench_time(body, &l, seconds, reps, 1L << 22);
      if (rank == 0) {
        printf("BENCH lat_%s_%s_%s %ld %.4f\n", op_names[o], sync, flavor, n, t * 1e6);
        fflush(stdout);
      }
      if (n == 0) break;
    }
    if (!strcmp(sync, "flush")) MPI_Win_unlock_all(w.win);
    if (!strcmp(sync, "fence")) MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
  }
  if (rank == 0) printf("ENGINE %s\n", bench_engine(w.win));
  MPI_Group_free(&l.origin);
  MPI_Group_free(&l.target);
  MPI_Group_free(&world);
  bench_window_close(&w);
  free(l.src);
  free(l.dst);
  free(l.cmp);
  MPI_Finalize();
  return 0;
}
