/* Many-to-one flood: every rank fires thousands of accumulates and fetch-and-ops at rank 0
 * without flushing, then one flush. With credit flow control nothing deadlocks and nothing is
 * lost, whatever the receive space (run also with tiny credit settings). */
#include "common.h"

enum { N = 20000 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  int64_t* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4 * sizeof(int64_t), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, 4 * sizeof(int64_t));
  MPI_Barrier(MPI_COMM_WORLD);
  const int64_t one = 1, two = 2;
  int64_t* fetched = malloc(sizeof(int64_t) * (N / 10));
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int i = 0; i < N; i++) {
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(&two, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
    if (i % 10 == 0)
      MPI_OK(MPI_Fetch_and_op(&one, &fetched[i / 10], MPI_INT64_T, 0, 2, MPI_SUM, win));
  }
  MPI_OK(MPI_Win_flush_all(win));
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    CHECK(mem[0] == (int64_t)N * t_size, "counter 0: %lld", (long long)mem[0]);
    CHECK(mem[1] == 2LL * N * t_size, "counter 1: %lld", (long long)mem[1]);
    CHECK(mem[2] == (int64_t)(N / 10) * t_size, "counter 2: %lld", (long long)mem[2]);
  }
  /* Fetched values are increasing for one origin (ordering) and below the total. */
  for (int i = 1; i < N / 10; i++)
    CHECK(fetched[i] > fetched[i - 1] && fetched[i] < (int64_t)(N / 10) * t_size,
          "fetch %d: %lld after %lld", i, (long long)fetched[i], (long long)fetched[i - 1]);
  free(fetched);
  MPI_OK(MPI_Win_free(&win));
  return t_finish("am_flood");
}
