/* lock_all epochs with flush, flush_local, flush_all, flush_local_all and request-based
 * operations (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate completed with
 * MPI_Wait, MPI_Waitall and MPI_Test), every flavor, every byte verified; afterwards every
 * target grants an exclusive lock (unlock_all released them all, whatever the pool sizes). */
#include "common.h"

enum { WORDS = 24, ROUNDS = 30 };

static void run(enum t_flavor f) {
  const MPI_Aint slot = 2 * WORDS * (MPI_Aint)sizeof(int64_t);
  struct t_win w;
  if (!t_win_create(&w, f, slot * t_size, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, (size_t)(slot * t_size));
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t buf[WORDS], back[WORDS];
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int round = 0; round < ROUNDS; round++) {
    for (int t = 0; t < t_size; t++) {
      const MPI_Aint d = t_disp(&w, t, t_rank * slot, 1);
      /* put + flush, then a get must see it. */
      for (int i = 0; i < WORDS; i++)
        buf[i] = round * 1000000 + t_rank * 10000 + t * 100 + i;
      MPI_OK(MPI_Put(buf, WORDS, MPI_INT64_T, t, d, WORDS, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      MPI_OK(MPI_Get(back, WORDS, MPI_INT64_T, t, d, WORDS, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(memcmp(back, buf, sizeof buf) == 0, "%s round %d: get after flush", t_flavor_names[f],
            round);
      /* flush_local: the buffer may be reused at once; the second half gets other data. */
      MPI_OK(MPI_Put(buf, WORDS, MPI_INT64_T, t, d + WORDS * 8, WORDS, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_flush_local(t, w.win));
      for (int i = 0; i < WORDS; i++)
        buf[i] = -buf[i];
    }
    MPI_OK(MPI_Win_flush_local_all(w.win));
    MPI_OK(MPI_Win_flush_all(w.win));
    /* Request-based operations. */
    MPI_Request req[1], more[3];
    const int right = (t_rank + 1) % t_size;
    const MPI_Aint d = t_disp(&w, right, t_rank * slot, 1);
    int64_t v = round, old = -1, got = -1, one = 1;
    MPI_OK(MPI_Rput(&v, 1, MPI_INT64_T, right, d, 1, MPI_INT64_T, w.win, &req[0]));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush(right, w.win));
    MPI_OK(
        MPI_Raccumulate(&one, 1, MPI_INT64_T, right, d, 1, MPI_INT64_T, MPI_SUM, w.win, &more[0]));
    MPI_OK(MPI_Win_flush(right, w.win));
    MPI_OK(MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, right, d, 1, MPI_INT64_T,
                               MPI_SUM, w.win, &more[1]));
    MPI_OK(MPI_Win_flush(right, w.win));
    MPI_OK(MPI_Rget(&got, 1, MPI_INT64_T, right, d, 1, MPI_INT64_T, w.win, &more[2]));
    MPI_Status sts[3];
    MPI_OK(MPI_Waitall(3, more, sts));
    int done = 0;
    while (!done)
      MPI_OK(MPI_Test(&req[0], &done, MPI_STATUS_IGNORE));
    CHECK(old == round + 1, "%s: Rget_accumulate fetched %lld", t_flavor_names[f], (long long)old);
    CHECK(got == round + 2, "%s: Rget got %lld", t_flavor_names[f], (long long)got);
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  /* The target reads its memory in a self lock epoch (and after MPI_Win_sync). */
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, w.win));
  MPI_OK(MPI_Win_sync(w.win));
  const int64_t* mine = (const int64_t*)w.base;
  const int r = ROUNDS - 1, left = (t_rank + t_size - 1) % t_size;
  for (int o = 0; o < t_size; o++) {
    for (int i = 0; i < WORDS; i++) {
      const int64_t want = r * 1000000 + o * 10000 + t_rank * 100 + i;
      if (o == left && i == 0) continue; /* overwritten by the request-based tail */
      CHECK(mine[o * 2 * WORDS + i] == want, "%s: slot %d word %d", t_flavor_names[f], o, i);
      CHECK(mine[o * 2 * WORDS + WORDS + i] == want, "%s: slot %d second half word %d",
            t_flavor_names[f], o, i);
    }
  }
  CHECK(mine[left * 2 * WORDS] == r + 2, "%s: request tail %lld", t_flavor_names[f],
        (long long)mine[left * 2 * WORDS]);
  MPI_OK(MPI_Win_unlock(t_rank, w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  /* An epoch that touches every target once, each completed by a flush: unlock_all then has
   * every target to unlock and nothing queued for any (even with one target element). */
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int t = 0; t < t_size; t++) {
    const int64_t mark = -t_rank;
    MPI_OK(
        MPI_Put(&mark, 1, MPI_INT64_T, t, t_disp(&w, t, t_rank * slot, 1), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_flush(t, w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  /* unlock_all released every target's lock: each rank gets an exclusive lock on itself while
   * the others wait in a barrier (a shared lock left behind would never be released). */
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, w.win));
  int64_t probe = 0;
  MPI_OK(MPI_Get(&probe, 1, MPI_INT64_T, t_rank, t_disp(&w, t_rank, left * slot, 1), 1, MPI_INT64_T,
                 w.win));
  MPI_OK(MPI_Win_unlock(t_rank, w.win));
  CHECK(probe == -left, "%s: mark %lld", t_flavor_names[f], (long long)probe);
  MPI_Barrier(MPI_COMM_WORLD);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("lockall_flush");
}
