/* Accumulates on a node peer's private memory (create and dynamic windows, cross-memory attach)
 * read, combine and write back a whole region under the lock stripes of its elements. Here
 * every rank adds to the last rank's window with accumulates of 1 to 2048 elements (a few
 * stripes, or all of them) and get_accumulates, while single-element fetch_and_ops and
 * accumulates from every rank (the owner too, on its own memory) hit the same elements. Every
 * rank counts what it added to each element; no update may be lost. */
#include "common.h"

enum { N = 2048, ITERS = 1000 };

static void run(enum t_flavor f) {
  const int target = t_size - 1;
  struct t_win w;
  t_win_create(&w, f, N * 8, 8, MPI_COMM_WORLD);
  memset(w.base, 0, N * 8);
  t_sync_own(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  static const int lens[] = {2048, 1, 17, 300, 2, 1000, 64};
  int64_t* added = calloc(N, 8);
  int64_t* ones = malloc(N * 8);
  int64_t* old = malloc(N * 8);
  for (int i = 0; i < N; i++)
    ones[i] = 1;
  const MPI_Aint base = t_disp(&w, target, 0, 8);
  const MPI_Aint unit = f == T_DYNAMIC ? 8 : 1;
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int it = 0; it < ITERS; it++) {
    const int len = lens[(it + t_rank) % 7];
    const int lo = (it * 389 + t_rank * 11) % (N - len + 1);
    if (it % 5 == 4) {
      MPI_OK(MPI_Get_accumulate(ones, len, MPI_INT64_T, old, len, MPI_INT64_T, target,
                                base + lo * unit, len, MPI_INT64_T, MPI_SUM, w.win));
    } else {
      MPI_OK(MPI_Accumulate(ones, len, MPI_INT64_T, target, base + lo * unit, len, MPI_INT64_T,
                            MPI_SUM, w.win));
    }
    for (int i = lo; i < lo + len; i++)
      added[i] += 1;
    const int e = (it * 7919 + t_rank * 13) % N;
    /* Origin and result buffers live until the flush that completes them (every 16th). */
    static const int64_t k = 1000;
    static int64_t got[16];
    MPI_OK(
        MPI_Fetch_and_op(&k, &got[it % 16], MPI_INT64_T, target, base + e * unit, MPI_SUM, w.win));
    added[e] += k;
    const int e2 = (it * 31 + t_rank) % N;
    MPI_OK(MPI_Accumulate(&k, 1, MPI_INT64_T, target, base + e2 * unit, 1, MPI_INT64_T, MPI_SUM,
                          w.win));
    added[e2] += k;
    if (it % 16 == 0) MPI_OK(MPI_Win_flush(target, w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  int64_t* want = calloc(N, 8);
  MPI_Reduce(added, want, N, MPI_INT64_T, MPI_SUM, target, MPI_COMM_WORLD);
  if (t_rank == target) {
    t_sync_own(w.win);
    const int64_t* v = (const int64_t*)w.base;
    for (int i = 0; i < N; i++)
      CHECK(v[i] == want[i], "%s: element %d is %lld, want %lld (an update was lost)",
            t_flavor_names[f], i, (long long)v[i], (long long)want[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(want);
  free(old);
  free(ones);
  free(added);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  run(T_CREATE);
  run(T_DYNAMIC);
  return t_finish("cma_acc_race");
}
