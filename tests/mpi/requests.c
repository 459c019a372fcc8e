/* Request-based RMA (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate) completed with
 * every completion call a program uses: MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome,
 * MPI_Test loops, MPI_Testall, MPI_Testany and MPI_Request_get_status; under lock_all and
 * under per-target locks, every flavor. Completion is local: a get's buffer holds the data, a
 * put's buffer may be reused (it is overwritten at once to prove it). Totals and every word
 * are checked at the end. Ranks meet with MPI_Ibarrier + MPI_Wait: with blocking calls not
 * interposed (OSPREY_INTERPOSE_BLOCKING=0), waits must still serve the message path. */
#include "common.h"

enum { W = 16, ROUNDS = 20 };

static void meet(void) {
  MPI_Request r;
  MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* Rank r's window: [0, W) put by its left neighbour, word W accumulates from everyone. */
static void complete(MPI_Request* r, int n, int how) {
  int flag = 0, idx = -1, outcount = 0, indices[8];
  MPI_Status st[8];
  switch (how % 6) {
    case 0:
      for (int i = 0; i < n; i++)
        MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
      break;
    case 1:
      MPI_OK(MPI_Waitall(n, r, st));
      break;
    case 2:
      for (int left = n; left > 0; left--) {
        MPI_OK(MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE));
        CHECK(idx >= 0 && idx < n, "waitany index %d", idx);
      }
      break;
    case 3:
      for (int left = n; left > 0; left -= outcount) {
        MPI_OK(MPI_Waitsome(n, r, &outcount, indices, st));
        CHECK(outcount > 0, "waitsome returned %d", outcount);
      }
      break;
    case 4:
      for (int i = 0; i < n; i++) {
        do {
          MPI_OK(MPI_Request_get_status(r[i], &flag, MPI_STATUS_IGNORE));
        } while (!flag);
        MPI_OK(MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "test after get_status said done");
      }
      break;
    default:
      do {
        MPI_OK(MPI_Testall(n, r, &flag, st));
      } while (!flag);
      break;
  }
  for (int i = 0; i < n; i++)
    CHECK(r[i] == MPI_REQUEST_NULL, "request %d still active", i);
}

static void run(enum t_flavor f) {
  struct t_win w;
  const int du = f == T_DYNAMIC ? 1 : 8;
  if (!t_win_create(&w, f, (W + 1) * sizeof(int64_t), du, MPI_COMM_WORLD)) return;
  int64_t* mine = (int64_t*)w.base;
  memset(mine, 0, (W + 1) * sizeof(int64_t));
  meet();
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  int64_t out[W], in[W], back[W], fetched = 0;
  for (int round = 0; round < ROUNDS; round++) {
    const int lock_all = round % 2 == 0;
    if (lock_all)
      MPI_OK(MPI_Win_lock_all(0, w.win));
    else
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win));
    for (int i = 0; i < W; i++)
      out[i] = (int64_t)round * 1000 + t_rank * 100 + i;
    MPI_Request r[3];
    MPI_OK(MPI_Rput(out, W, MPI_INT64_T, right, t_disp(&w, right, 0, du), W, MPI_INT64_T, w.win,
                    &r[0]));
    const int64_t one = 1;
    MPI_OK(MPI_Raccumulate(&one, 1, MPI_INT64_T, right, t_disp(&w, right, W * 8, du), 1,
                           MPI_INT64_T, MPI_SUM, w.win, &r[1]));
    MPI_OK(MPI_Rget_accumulate(NULL, 0, MPI_INT64_T, &fetched, 1, MPI_INT64_T, right,
                               t_disp(&w, right, W * 8, du), 1, MPI_INT64_T, MPI_NO_OP, w.win,
                               &r[2]));
    complete(r, 3, round);
    for (int i = 0; i < W; i++)
      out[i] = -1; /* locally complete: the buffer is ours again */
    CHECK(fetched >= 0 && fetched <= (int64_t)(round + 1) * t_size, "fetched counter %lld",
          (long long)fetched);
    /* Read back what was put: flush first, a request completes locally only. */
    MPI_OK(MPI_Win_flush(right, w.win));
    MPI_Request g;
    MPI_OK(
        MPI_Rget(back, W, MPI_INT64_T, right, t_disp(&w, right, 0, du), W, MPI_INT64_T, w.win, &g));
    complete(&g, 1, round + 1);
    for (int i = 0; i < W; i++)
      CHECK(back[i] == (int64_t)round * 1000 + t_rank * 100 + i, "%s round %d: got back %lld",
            t_flavor_names[f], round, (long long)back[i]);
    if (lock_all)
      MPI_OK(MPI_Win_unlock_all(w.win));
    else
      MPI_OK(MPI_Win_unlock(right, w.win));
    meet();
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, w.win));
    for (int i = 0; i < W; i++)
      in[i] = mine[i];
    MPI_OK(MPI_Win_unlock(t_rank, w.win));
    for (int i = 0; i < W; i++)
      CHECK(in[i] == (int64_t)round * 1000 + left * 100 + i, "%s round %d word %d: %lld",
            t_flavor_names[f], round, i, (long long)in[i]);
    meet();
  }
  CHECK(mine[W] == ROUNDS, "%s: %lld accumulates arrived, want %d", t_flavor_names[f],
        (long long)mine[W], ROUNDS);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("requests");
}
