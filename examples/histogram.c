/* A distributed histogram built with RMA and fence epochs.
 *
 * Every rank draws samples and bins them; bin b is owned by rank b % P. In each round every
 * rank puts its partial counts for the bins rank t owns into its own slot of t's window, a
 * fence closes the epoch, and the owners fold the slots into their totals. At the end rank 0
 * gets every owner's totals and checks that no sample was lost.
 *
 *   mpiexec -n 2 ./histogram [samples_per_rank] [bins] [rounds]
 *
 * The program is plain MPI: run it as is for the host MPI's RMA, or with osprey preloaded
 * (tools/osprey-run). It prints which engine served its window. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long samples = argc > 1 ? atol(argv[1]) : 2000000;
  const int bins = argc > 2 ? atoi(argv[2]) : 4096;
  const int rounds = argc > 3 ? atoi(argv[3]) : 200;

  const int owned = (bins + size - 1) / size; /* bins per owner (upper bound) */
  /* Window: one slot of `owned` counters per origin. */
  int64_t* slots;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)sizeof(int64_t) * owned * size, sizeof(int64_t), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &slots, &win);
  int64_t* total = calloc((size_t)owned, sizeof(int64_t));
  int64_t* partial = malloc(sizeof(int64_t) * (size_t)owned * (size_t)size);

  MPI_Info info;
  MPI_Win_get_info(win, &info);
  char engine[MPI_MAX_INFO_VAL + 1] = "host MPI";
  int has = 0;
  MPI_Info_get(info, "osprey_version", MPI_MAX_INFO_VAL, engine, &has);
  MPI_Info_free(&info);

  uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1);
  const long per_round = samples / rounds;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  for (int r = 0; r < rounds; r++) {
    memset(partial, 0, sizeof(int64_t) * (size_t)owned * (size_t)size);
    for (long i = 0; i < per_round; i++) {
      /* A skewed distribution: the sum of two uniforms. */
      const int b =
          (int)((next_random(&seed) % (uint64_t)bins + next_random(&seed) % (uint64_t)bins) / 2);
      partial[(size_t)(b % size) * (size_t)owned + (size_t)(b / size)]++;
    }
    for (int t = 0; t < size; t++)
      MPI_Put(partial + (size_t)t * (size_t)owned, owned, MPI_INT64_T, t, (MPI_Aint)rank * owned,
              owned, MPI_INT64_T, win);
    MPI_Win_fence(0, win);
    for (int o = 0; o < size; o++)
      for (int j = 0; j < owned; j++)
        total[j] += slots[(size_t)o * (size_t)owned + (size_t)j];
    MPI_Win_fence(0, win);
  }
  /* Publish totals in slot 0 of each window and let rank 0 collect them. */
  memcpy(slots, total, sizeof(int64_t) * (size_t)owned);
  MPI_Win_fence(0, win);
  int64_t* all = NULL;
  if (rank == 0) {
    all = malloc(sizeof(int64_t) * (size_t)owned * (size_t)size);
    for (int t = 0; t < size; t++)
      MPI_Get(all + (size_t)t * (size_t)owned, owned, MPI_INT64_T, t, 0, owned, MPI_INT64_T, win);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  const double elapsed = MPI_Wtime() - t0;

  int status = 0;
  if (rank == 0) {
    int64_t sum = 0, peak = 0, peak_bin = 0;
    uint64_t digest = 1469598103934665603ull;
    for (int b = 0; b < bins; b++) {
      const int64_t c = all[(size_t)(b % size) * (size_t)owned + (size_t)(b / size)];
      sum += c;
      digest = (digest ^ (uint64_t)c) * 1099511628211ull;
      if (c > peak) peak = c, peak_bin = b;
    }
    const int64_t want = (int64_t)per_round * rounds * size;
    status = sum != want;
    printf(
        "histogram [%s]: %d ranks, %d bins, %d fence rounds, %lld samples: %.3f s, "
        "peak bin %lld (%lld), digest %016llx %s\n",
        engine, size, bins, rounds, (long long)sum, elapsed, (long long)peak_bin, (long long)peak,
        (unsigned long long)digest, status ? "MISMATCH" : "ok");
    free(all);
  }
  MPI_Win_free(&win);
  free(total);
  free(partial);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
