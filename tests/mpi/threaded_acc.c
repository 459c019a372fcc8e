/* MPI_THREAD_MULTIPLE: threads of every rank issue accumulates, fetch-and-ops and puts on one
 * window inside a single lock_all epoch, including the first (lazily locking) operation to
 * each target at the same time. Totals must be exact. */
#include <pthread.h>

#include "common.h"

enum { THREADS = 3, N = 2000 };

static struct t_win w;
static int64_t fetched[THREADS][N];

static void* worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  const int du = w.flavor == T_DYNAMIC ? 1 : 8;
  /* Origin buffers: they must live until the operations complete (the next flush). */
  const int64_t one = 1, mark = t_rank * 100 + id;
  for (int i = 0; i < N; i++) {
    const int t = (i + id) % t_size;
    MPI_OK(MPI_Fetch_and_op(&one, &fetched[id][i], MPI_INT64_T, 0, t_disp(&w, 0, 0, du), MPI_SUM,
                            w.win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, t_disp(&w, t, 8, du), 1, MPI_INT64_T, MPI_SUM,
                          w.win));
    MPI_OK(MPI_Put(&mark, 1, MPI_INT64_T, t, t_disp(&w, t, (2 + t_rank * THREADS + id) * 8, du), 1,
                   MPI_INT64_T, w.win));
    if (i % 64 == 0) MPI_OK(MPI_Win_flush(t, w.win));
  }
  /* This thread's origin buffers end with it: complete its operations locally first. */
  MPI_OK(MPI_Win_flush_local_all(w.win));
  return NULL;
}

int main(int argc, char** argv) {
  t_init_multiple(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    const int words = 2 + t_size * THREADS;
    if (!t_win_create(&w, (enum t_flavor)f, words * 8, 8, MPI_COMM_WORLD)) continue;
    memset(w.base, 0, (size_t)words * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, w.win));
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
      pthread_create(&th[i], NULL, worker, (void*)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
      pthread_join(th[i], NULL);
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    const int64_t* mine = (const int64_t*)w.base;
    if (t_rank == 0)
      CHECK(mine[0] == (int64_t)t_size * THREADS * N, "%s: counter %lld", t_flavor_names[f],
            (long long)mine[0]);
    int64_t want = 0;
    for (int r = 0; r < t_size; r++)
      for (int id = 0; id < THREADS; id++)
        for (int i = 0; i < N; i++)
          want += (i + id) % t_size == t_rank;
    CHECK(mine[1] == want, "%s: accumulated %lld want %lld", t_flavor_names[f], (long long)mine[1],
          (long long)want);
    for (int r = 0; r < t_size; r++)
      for (int id = 0; id < THREADS; id++)
        CHECK(mine[2 + r * THREADS + id] == r * 100 + id, "%s: mark of %d/%d", t_flavor_names[f], r,
              id);
    /* Fetched values over all threads of all ranks are a permutation. */
    int64_t* all = malloc(sizeof(int64_t) * THREADS * N * (size_t)t_size);
    MPI_Allgather(fetched, THREADS * N, MPI_INT64_T, all, THREADS * N, MPI_INT64_T, MPI_COMM_WORLD);
    char* seen = calloc((size_t)THREADS * N * (size_t)t_size, 1);
    for (long i = 0; i < (long)THREADS * N * t_size; i++) {
      CHECK(all[i] >= 0 && all[i] < (int64_t)THREADS * N * t_size && !seen[all[i]],
            "%s: fetched %lld twice or out of range", t_flavor_names[f], (long long)all[i]);
      seen[all[i]] = 1;
    }
    free(seen);
    free(all);
    t_win_free(&w);
  }
  return t_finish("threaded_acc");
}
