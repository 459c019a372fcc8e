/* Global sums with MPI_Accumulate into arrays the program already has, the pattern of Global
 * Arrays' accumulate (over ARMCI-MPI) and of assembling a distributed vector: every rank adds
 * patches into a distributed array whose blocks live in the ranks' own malloc'ed memory,
 * exposed with MPI_Win_create.
 *
 * A global array of n * P elements is cut into blocks of n, block r in rank r's memory. In
 * every round each rank adds a patch of 2n + 1 consecutive elements that starts somewhere
 * else for every (rank, round), so it spans three blocks: one MPI_Accumulate(MPI_SUM) per
 * block it touches. Ranks add into the same blocks, and the same elements, at once. This is done
 * twice:
 *   - doubles, in fence epochs (a few rounds per epoch);
 *   - 64-bit integers, each accumulate in its own MPI_Win_lock(MPI_LOCK_SHARED) epoch on its
 *     target, as ARMCI-MPI issues them.
 * The values added are small multiples of 1/4 (doubles) and numbers above 2^32 (integers), so
 * that the sums are exact in any order of addition.
 *
 *   mpiexec -n 4 ./global_sum [elements_per_rank] [rounds]
 *
 * Checks, on every rank: every element of its block equals the sum of what every (rank,
 * round) patch added there (computed locally), and the global sums (MPI_Allreduce of the
 * blocks' sums) equal the closed forms. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_name.h"

enum { ROUNDS_PER_FENCE = 4 };

static void fail(const char* what, long long at, double got, double want) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "global_sum: rank %d: %s %lld: got %.17g, want %.17g\n", rank, what, at, got,
          want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Where (rank, round)'s patch starts in the global array, its length, and what it adds. */
typedef struct {
  int64_t global, length;
} patch_t;
static patch_t patch_of(int rank, int round, int64_t n, int64_t total) {
  const int64_t start = ((int64_t)rank * 7919 + (int64_t)round * 104729) % total;
  return (patch_t){start, 2 * n + 1}; /* touches three blocks (or wraps around) */
}
static double double_term(int rank, int round, int64_t i) {
  return 0.25 * (double)((rank + 3 * round + i) % 13);
}
static int64_t int_term(int rank, int round, int64_t i) {
  return ((int64_t)(rank % 4 + 1) << 32) + (int64_t)round * 1000 + i % 977;
}

/* Adds patch values into the global array, one accumulate per block (and per wrap-around).
 * `lock` says whether each accumulate gets its own shared-lock epoch. */
static void add_patch(MPI_Win win, MPI_Datatype type, const void* values, size_t elem_size,
                      patch_t p, int64_t n, int64_t total, int lock) {
  int64_t done = 0;
  while (done < p.length) {
    const int64_t g = (p.global + done) % total;
    const int target = (int)(g / n);
    const int64_t offset = g % n;
    int64_t count = n - offset;
    if (count > p.length - done) count = p.length - done;
    if (lock) MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    MPI_Accumulate((const char*)values + (size_t)done * elem_size, (int)count, type, target,
                   (MPI_Aint)offset, (int)count, type, MPI_SUM, win);
    if (lock) MPI_Win_unlock(target, win);
    done += count;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int64_t n = argc > 1 ? atol(argv[1]) : 20000;
  const int rounds = argc > 2 ? atoi(argv[2]) : 40;
  if (n < 1 || rounds < 1) fail("elements per rank and rounds", n, rounds, 1);
  const int64_t total = n * size;

  /* The program's own arrays, exposed as they are. */
  double* reals = calloc((size_t)n, sizeof(double));
  int64_t* counts = calloc((size_t)n, sizeof(int64_t));
  MPI_Win real_win, count_win;
  MPI_Win_create(reals, (MPI_Aint)sizeof(double) * n, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                 &real_win);
  MPI_Win_create(counts, (MPI_Aint)sizeof(int64_t) * n, sizeof(int64_t), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &count_win);
  char engine[MPI_MAX_INFO_VAL + 1];
  engine_name(real_win, engine);

  /* Every round's values, prepared before the timed part. */
  const int64_t length = patch_of(0, 0, n, total).length;
  double* real_values = malloc(sizeof(double) * (size_t)length * (size_t)rounds);
  int64_t* int_values = malloc(sizeof(int64_t) * (size_t)length * (size_t)rounds);
  for (int k = 0; k < rounds; k++)
    for (int64_t i = 0; i < length; i++) {
      real_values[(size_t)k * (size_t)length + (size_t)i] = double_term(rank, k, i);
      int_values[(size_t)k * (size_t)length + (size_t)i] = int_term(rank, k, i);
    }

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  MPI_Win_fence(MPI_MODE_NOPRECEDE, real_win);
  for (int k = 0; k < rounds; k++) {
    add_patch(real_win, MPI_DOUBLE, real_values + (size_t)k * (size_t)length, sizeof(double),
              patch_of(rank, k, n, total), n, total, 0);
    if ((k + 1) % ROUNDS_PER_FENCE == 0 || k + 1 == rounds)
      MPI_Win_fence(k + 1 == rounds ? MPI_MODE_NOSUCCEED : 0, real_win);
  }
  for (int k = 0; k < rounds; k++)
    add_patch(count_win, MPI_INT64_T, int_values + (size_t)k * (size_t)length, sizeof(int64_t),
              patch_of(rank, k, n, total), n, total, 1);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's lock epochs are over */
  const double elapsed = MPI_Wtime() - t0;

  /* What every patch added to my block, computed here. */
  double* want_reals = calloc((size_t)n, sizeof(double));
  int64_t* want_counts = calloc((size_t)n, sizeof(int64_t));
  for (int r = 0; r < size; r++)
    for (int k = 0; k < rounds; k++) {
      const patch_t p = patch_of(r, k, n, total);
      for (int64_t i = 0; i < p.length; i++) {
        const int64_t g = (p.global + i) % total;
        if (g / n != rank) continue;
        want_reals[g % n] += double_term(r, k, i);
        want_counts[g % n] += int_term(r, k, i);
      }
    }
  /* My own memory, after others' epochs on it: a lock epoch on myself makes it current. */
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, count_win);
  double real_sum = 0;
  int64_t count_sum = 0;
  for (int64_t j = 0; j < n; j++) {
    if (reals[j] != want_reals[j]) fail("double at", rank * n + j, reals[j], want_reals[j]);
    if (counts[j] != want_counts[j])
      fail("int64 at", rank * n + j, (double)counts[j], (double)want_counts[j]);
    real_sum += reals[j];
    count_sum += counts[j];
  }
  MPI_Win_unlock(rank, count_win);

  /* The global sums against their closed forms: the sum over all patches of all terms. */
  double all_reals, want_all_reals = 0;
  int64_t all_counts, want_all_counts = 0;
  MPI_Allreduce(&real_sum, &all_reals, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&count_sum, &all_counts, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++)
    for (int k = 0; k < rounds; k++)
      for (int64_t i = 0; i < length; i++) {
        want_all_reals += double_term(r, k, i);
        want_all_counts += int_term(r, k, i);
      }
  if (all_reals != want_all_reals) fail("global double sum, rank", rank, all_reals, want_all_reals);
  if (all_counts != want_all_counts)
    fail("global int64 sum, rank", rank, (double)all_counts, (double)want_all_counts);

  double slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "global_sum [%s]: %d ranks, %lld elements, %d rounds of fence and of lock "
        "accumulates, sums %.2f and %lld: %.4f s ok\n",
        engine, size, (long long)total, rounds, all_reals, (long long)all_counts, slowest);
  MPI_Win_free(&real_win);
  MPI_Win_free(&count_win);
  free(reals);
  free(counts);
  free(real_values);
  free(int_values);
  free(want_reals);
  free(want_counts);
  MPI_Finalize();
  return 0;
}
