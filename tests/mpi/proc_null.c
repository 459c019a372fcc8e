/* MPI_PROC_NULL is a valid target of every RMA call (MPI-3.1 11.3): the call does nothing and
 * succeeds, a request it returns completes at once, inside every kind of epoch and outside
 * any (as in MPICH), and the epoch calls that take a rank accept it too. */
#include "common.h"

enum { N = 8 };

static void check_untouched(const int64_t* buf, int64_t v, const char* what) {
  for (int i = 0; i < N; i++)
    CHECK(buf[i] == v, "%s: word %d became %lld", what, i, (long long)buf[i]);
}

/* Every communication call to MPI_PROC_NULL; request-based ones only if `requests`. */
static void all_calls(MPI_Win win, int requests) {
  int64_t buf[N], res[N], cmp = 0;
  for (int i = 0; i < N; i++)
    buf[i] = res[i] = 77;
  MPI_OK(MPI_Put(buf, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, win));
  MPI_OK(MPI_Get(res, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, win));
  MPI_OK(MPI_Accumulate(buf, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Get_accumulate(buf, N, MPI_INT64_T, res, N, MPI_INT64_T, MPI_PROC_NULL, 0, N,
                            MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Fetch_and_op(buf, res, MPI_INT64_T, MPI_PROC_NULL, 0, MPI_SUM, win));
  MPI_OK(MPI_Compare_and_swap(buf, &cmp, res, MPI_INT64_T, MPI_PROC_NULL, 0, win));
  check_untouched(res, 77, "result buffer");
  if (!requests) return;
  MPI_Request r[4];
  MPI_OK(MPI_Rput(buf, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, win, &r[0]));
  MPI_OK(MPI_Rget(res, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, win, &r[1]));
  MPI_OK(
      MPI_Raccumulate(buf, N, MPI_INT64_T, MPI_PROC_NULL, 0, N, MPI_INT64_T, MPI_SUM, win, &r[2]));
  MPI_OK(MPI_Rget_accumulate(buf, N, MPI_INT64_T, res, N, MPI_INT64_T, MPI_PROC_NULL, 0, N,
                             MPI_INT64_T, MPI_SUM, win, &r[3]));
  int flag = 0;
  MPI_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
  CHECK(flag && r[0] == MPI_REQUEST_NULL, "an MPI_PROC_NULL request is not complete at once");
  MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
  MPI_Status st[2];
  MPI_OK(MPI_Waitall(2, &r[2], st));
  for (int i = 0; i < 4; i++)
    CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
  check_untouched(res, 77, "result buffer of a request");
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, N * sizeof(int64_t), 8, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    for (int i = 0; i < N; i++)
      mine[i] = 5;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    all_calls(w.win, 1); /* outside any epoch */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, w.win));
    all_calls(w.win, 1);
    MPI_OK(MPI_Win_flush(MPI_PROC_NULL, w.win));
    MPI_OK(MPI_Win_flush_local(MPI_PROC_NULL, w.win));
    MPI_OK(MPI_Win_unlock(MPI_PROC_NULL, w.win));

    MPI_OK(MPI_Win_lock_all(0, w.win));
    all_calls(w.win, 1);
    MPI_OK(MPI_Win_flush(MPI_PROC_NULL, w.win));
    MPI_OK(MPI_Win_flush_local(MPI_PROC_NULL, w.win));
    MPI_OK(MPI_Win_unlock_all(w.win));

    MPI_OK(MPI_Win_fence(0, w.win));
    all_calls(w.win, 0);
    MPI_OK(MPI_Win_fence(0, w.win));

    MPI_Group world, none;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 0, NULL, &none);
    MPI_OK(MPI_Win_post(none, 0, w.win));
    MPI_OK(MPI_Win_start(none, 0, w.win));
    all_calls(w.win, 0);
    MPI_OK(MPI_Win_complete(w.win));
    MPI_OK(MPI_Win_wait(w.win));
    MPI_Group_free(&world);
    MPI_Group_free(&none);

    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    check_untouched(mine, 5, t_flavor_names[f]);
    t_win_free(&w);
  }
  return t_finish("proc_null");
}
