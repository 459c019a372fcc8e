/* Same-origin accumulates to one location apply in program order (the default
 * accumulate_ordering rar,raw,war,waw), with no flush between them. */
#include "common.h"

enum { N = 500 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, t_size * 2 * sizeof(int64_t), 1, MPI_COMM_WORLD))
      continue;
    memset(w.base, 0, t_size * 2 * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    const int target = (t_rank + 1) % t_size;
    const MPI_Aint d = t_disp(&w, target, t_rank * 2 * (MPI_Aint)sizeof(int64_t), 1);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
    int64_t prev = -1;
    for (int64_t i = 1; i <= N; i++) {
      int64_t seen, one = 1;
      /* waw: a REPLACE of i, then raw: read it back through NO_OP. */
      MPI_OK(MPI_Accumulate(&i, 1, MPI_INT64_T, target, d, 1, MPI_INT64_T, MPI_REPLACE, w.win));
      MPI_OK(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &seen, 1, MPI_INT64_T, target, d, 1,
                                MPI_INT64_T, MPI_NO_OP, w.win));
      MPI_OK(MPI_Win_flush_local(target, w.win));
      CHECK(seen == i, "%s: read %lld after replacing with %lld", t_flavor_names[f],
            (long long)seen, (long long)i);
      /* rar/war on the second word: fetch-and-add returns 0, 1, 2, ... in order. */
      MPI_OK(MPI_Fetch_and_op(&one, &seen, MPI_INT64_T, target, d + 8, MPI_SUM, w.win));
      MPI_OK(MPI_Win_flush_local(target, w.win));
      CHECK(seen == prev + 1, "%s: fetch-and-add returned %lld after %lld", t_flavor_names[f],
            (long long)seen, (long long)prev);
      prev = seen;
    }
    MPI_OK(MPI_Win_unlock(target, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    const int src = (t_rank + t_size - 1) % t_size;
    CHECK(((int64_t*)w.base)[src * 2] == N, "%s: final %lld", t_flavor_names[f],
          (long long)((int64_t*)w.base)[src * 2]);
    CHECK(((int64_t*)w.base)[src * 2 + 1] == N, "%s: counter %lld", t_flavor_names[f],
          (long long)((int64_t*)w.base)[src * 2 + 1]);
    t_win_free(&w);
  }
  return t_finish("acc_ordering");
}
