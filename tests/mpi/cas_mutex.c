/* A distributed queue lock (MCS) built only from MPI_Compare_and_swap, MPI_Fetch_and_op and
 * MPI_Accumulate under lock_all. The critical section increments a counter with a plain
 * get + put (correct only under mutual exclusion) and checks an occupancy word that any
 * overlap would reveal. Every flavor. */
#include "common.h"

enum { ITERS = 150 };
/* Per-rank window words: 0 tail (rank 0 only), 1 next, 2 locked, 3 counter, 4 occupancy. */
enum { TAIL, NEXT, LOCKED, COUNTER, OCC, NWORDS };

static struct t_win w;

static MPI_Aint at(int rank, int word) {
  return t_disp(&w, rank, word * (MPI_Aint)sizeof(int64_t), w.flavor == T_DYNAMIC ? 1 : 8);
}

static int64_t read_word(int rank, int word) {
  int64_t v, dummy = 0;
  MPI_OK(MPI_Fetch_and_op(&dummy, &v, MPI_INT64_T, rank, at(rank, word), MPI_NO_OP, w.win));
  MPI_OK(MPI_Win_flush(rank, w.win));
  return v;
}

static void write_word(int rank, int word, int64_t v) {
  MPI_OK(
      MPI_Accumulate(&v, 1, MPI_INT64_T, rank, at(rank, word), 1, MPI_INT64_T, MPI_REPLACE, w.win));
  MPI_OK(MPI_Win_flush(rank, w.win));
}

static void acquire(void) {
  write_word(t_rank, NEXT, -1);
  write_word(t_rank, LOCKED, 1);
  int64_t me = t_rank, pred;
  MPI_OK(MPI_Fetch_and_op(&me, &pred, MPI_INT64_T, 0, at(0, TAIL), MPI_REPLACE, w.win));
  MPI_OK(MPI_Win_flush(0, w.win));
  if (pred != -1) {
    write_word((int)pred, NEXT, me);
    while (read_word(t_rank, LOCKED) != 0) {
    }
  }
}

static void release(void) {
  int64_t me = t_rank, nobody = -1, old;
  MPI_OK(MPI_Compare_and_swap(&nobody, &me, &old, MPI_INT64_T, 0, at(0, TAIL), w.win));
  MPI_OK(MPI_Win_flush(0, w.win));
  if (old == me) return; /* nobody queued behind me */
  int64_t succ;
  while ((succ = read_word(t_rank, NEXT)) == -1) {
  }
  write_word((int)succ, LOCKED, 0);
}

static void run(enum t_flavor f) {
  if (!t_win_create(&w, f, NWORDS * sizeof(int64_t), sizeof(int64_t), MPI_COMM_WORLD)) return;
  int64_t* mine = (int64_t*)w.base;
  for (int i = 0; i < NWORDS; i++)
    mine[i] = 0;
  mine[TAIL] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int i = 0; i < ITERS; i++) {
    acquire();
    int64_t one = 1, minus = -1, occ, c;
    MPI_OK(MPI_Fetch_and_op(&one, &occ, MPI_INT64_T, 0, at(0, OCC), MPI_SUM, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    CHECK(occ == 0, "%s: critical section already occupied (%lld)", t_flavor_names[f],
          (long long)occ);
    MPI_OK(MPI_Get(&c, 1, MPI_INT64_T, 0, at(0, COUNTER), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    c++;
    MPI_OK(MPI_Put(&c, 1, MPI_INT64_T, 0, at(0, COUNTER), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    MPI_OK(MPI_Fetch_and_op(&minus, &occ, MPI_INT64_T, 0, at(0, OCC), MPI_SUM, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    CHECK(occ == 1, "%s: overlap while leaving (%lld)", t_flavor_names[f], (long long)occ);
    release();
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
    CHECK(mine[COUNTER] == (int64_t)ITERS * t_size, "%s: counter %lld, want %d", t_flavor_names[f],
          (long long)mine[COUNTER], ITERS * t_size);
    MPI_OK(MPI_Win_unlock(0, w.win));
  }
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("cas_mutex");
}
