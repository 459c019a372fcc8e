/* RMA latency microbenchmarks in plain MPI (no osprey headers): the same binary measures the
 * host MPI's RMA or osprey's when osprey is preloaded. Rank 0 is the origin, rank 1 the target;
 * other ranks only take part in collective synchronization.
 *
 *   rma_latency <test> [iterations] [repetitions]
 *
 * tests: fence, put_fence, put_flush, get_flush, acc_flush, fop, cas, lock_put_unlock,
 *        lock_unlock, flush
 * Prints "BENCH <test> <bytes> <microseconds per operation>" (median of the repetitions) and
 * "ENGINE <name>". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static const char* engine(MPI_Win win) {
  static char name[MPI_MAX_INFO_VAL + 1];
  MPI_Info info;
  int flag = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, "osprey_version", MPI_MAX_INFO_VAL, name, &flag);
  MPI_Info_free(&info);
  return flag ? name : "host";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size < 2) {
    if (rank == 0) fprintf(stderr, "usage: rma_latency <test> [iters] [reps] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const char* test = argv[1];
  const long iters = argc > 2 ? atol(argv[2]) : 20000;
  const int reps = argc > 3 ? atoi(argv[3]) : 7;

  int64_t* mem;
  MPI_Win win;
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  memset(mem, 0, 4096);
  int64_t one = 1, res = 0, cmp = 0;
  const int passive = strcmp(test, "fence") != 0 && strcmp(test, "put_fence") != 0;
  double* t = malloc(sizeof(double) * (size_t)reps);

  for (int r = 0; r < reps; r++) {
    if (passive && strncmp(test, "lock", 4) != 0) MPI_Win_lock_all(0, win);
    if (!passive) MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (!strcmp(test, "fence")) {
      for (long i = 0; i < iters; i++) MPI_Win_fence(0, win);
    } else if (!strcmp(test, "put_fence")) {
      for (long i = 0; i < iters; i++) {
        if (rank == 0) MPI_Put(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
        MPI_Win_fence(0, win);
      }
    } else if (rank == 0) {
      if (!strcmp(test, "put_flush")) {
        for (long i = 0; i < iters; i++) {
          MPI_Put(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
          MPI_Win_flush(1, win);
        }
      } else if (!strcmp(test, "get_flush")) {
        for (long i = 0; i < iters; i++) {
          MPI_Get(&res, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
          MPI_Win_flush(1, win);
        }
      } else if (!strcmp(test, "acc_flush")) {
        for (long i = 0; i < iters; i++) {
          MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, MPI_SUM, win);
          MPI_Win_flush(1, win);
        }
      } else if (!strcmp(test, "fop")) {
        for (long i = 0; i < iters; i++) {
          MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, win);
          MPI_Win_flush(1, win);
        }
      } else if (!strcmp(test, "cas")) {
        for (long i = 0; i < iters; i++) {
          MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT64_T, 1, 0, win);
          MPI_Win_flush(1, win);
        }
      } else if (!strcmp(test, "flush")) {
        for (long i = 0; i < iters; i++) MPI_Win_flush(1, win);
      } else if (!strcmp(test, "lock_put_unlock")) {
        for (long i = 0; i < iters; i++) {
          MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
          MPI_Put(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
          MPI_Win_unlock(1, win);
        }
      } else if (!strcmp(test, "lock_unlock")) {
        for (long i = 0; i < iters; i++) {
          MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
          MPI_Win_unlock(1, win);
        }
      } else {
        fprintf(stderr, "rma_latency: unknown test %s\n", test);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
    t[r] = (MPI_Wtime() - t0) / (double)iters * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
    if (passive && strncmp(test, "lock", 4) != 0) MPI_Win_unlock_all(win);
    if (!passive) MPI_Win_fence(0, win);
  }
  if (rank == 0) {
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    printf("ENGINE %s\n", engine(win));
    printf("BENCH %s 8 %.4f\n", test, t[reps / 2]);
  }
  MPI_Win_free(&win);
  free(t);
  MPI_Finalize();
  return 0;
}
