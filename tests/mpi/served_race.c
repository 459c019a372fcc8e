/* Small operations toward node peers' private memory, which osprey may leave for the target to
 * apply while it is inside MPI, and takes back and applies by cross-memory attach when the
 * target does not look in time. A window over a small malloc block per rank (it stays private),
 * created over it and then dynamic with it attached;
 * every rank is origin and target; in some stretches of rounds a rank computes for a while
 * between its calls, so that operations toward it wait, are taken back, and race with the
 * ones it serves. On one shared array per target, from every rank (the owner too):
 * - fetch_and_op sums, accumulates and get_accumulates of 1-4 elements (small enough to be
 *   served), accumulates of the whole array (never served: a whole-region update under the
 *   target's acc gate), all sums, so every count must come out exact;
 * - compare_and_swap increments of one counter per target, each retried until it wins: the
 *   counter never goes back, the old values a rank's wins at rank 0 saw rise, and the counter
 *   ends at the number of wins;
 * - per origin a row at every target: a put of a fresh value and a flush (the lone small put
 *   a flush may hand the target), then a get and a flush that must read it back.
 * Every value is checked; no update may be lost or applied twice. */
#include <time.h>

#include "private_window.h"

enum { SHARED = 64, ROW = 4, ITERS = 1500 };

static Win w;
static int tgt; /* the target of the operation at hand */

/* Displacements at tgt of the parts of each rank's window. */
static MPI_Aint shared_at(int i) {
  return disp_of(&w, tgt, (size_t)i);
}
static MPI_Aint cas_at(void) {
  return disp_of(&w, tgt, SHARED);
}
static MPI_Aint row_at(int origin, int i) {
  return disp_of(&w, tgt, (size_t)(SHARED + 1 + origin * ROW + i));
}

static void compute_for_us(double us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do {
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

static void run(int dynamic) {
  make_window(&w, SHARED + 1 + (size_t)t_size * ROW, dynamic);
  const MPI_Win win = w.win;
  long* const mem = w.mem;
  /* What this rank added to each target's shared array and counter. */
  long* added = calloc((size_t)t_size * (SHARED + 1), sizeof(long));
  long* wins_seen = malloc(ITERS * sizeof(long));
  long ones[SHARED], old[SHARED];
  for (int i = 0; i < SHARED; i++)
    ones[i] = 1;
  int nwins = 0;

  MPI_OK(MPI_Win_lock_all(0, win));
  for (int it = 0; it < ITERS; it++) {
    /* A quarter of the stretches of 50 rounds, staggered over the ranks: slow to answer. */
    if ((it / 50 + t_rank) % 4 == 0) compute_for_us(5 + (it % 7) * 3);
    /* Each kind of operation toward every rank in turn, itself too. */
    const int t = tgt = (t_rank + 1 + (it / 6) % t_size) % t_size;
    long* add = added + (size_t)t * (SHARED + 1);
    const int e = (it * 37 + t_rank * 11) % SHARED;
    switch (it % 6) {
      case 0: {
        long got = -1;
        const long k = 1 + it % 5;
        MPI_OK(MPI_Fetch_and_op(&k, &got, MPI_LONG, t, shared_at(e), MPI_SUM, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(got >= 0, "fetch_and_op at rank %d element %d returned %ld", t, e, got);
        add[e] += k;
        break;
      }
      case 1:
      case 2: {
        const int len = 1 + it % 4;
        const int lo = e % (SHARED - len + 1);
        if (it % 6 == 1) {
          MPI_OK(
              MPI_Accumulate(ones, len, MPI_LONG, t, shared_at(lo), len, MPI_LONG, MPI_SUM, win));
        } else {
          for (int i = 0; i < len; i++)
            old[i] = -1;
          MPI_OK(MPI_Get_accumulate(ones, len, MPI_LONG, old, len, MPI_LONG, t, shared_at(lo), len,
                                    MPI_LONG, MPI_SUM, win));
        }
        MPI_OK(MPI_Win_flush(t, win));
        for (int i = 0; i < len; i++) {
          add[lo + i] += 1;
          if (it % 6 == 2)
            CHECK(old[i] >= 0, "get_accumulate at rank %d element %d returned %ld", t, lo + i,
                  old[i]);
        }
        break;
      }
      case 3:
        MPI_OK(MPI_Accumulate(ones, SHARED, MPI_LONG, t, shared_at(0), SHARED, MPI_LONG, MPI_SUM,
                              win));
        MPI_OK(MPI_Win_flush(t, win));
        for (int i = 0; i < SHARED; i++)
          add[i] += 1;
        break;
      case 4: {
        /* Read, then swap in one more until nobody came between: an increment. */
        long seen = 0, none = 0;
        MPI_OK(MPI_Fetch_and_op(&none, &seen, MPI_LONG, t, cas_at(), MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(t, win));
        for (;;) {
          const long next = seen + 1;
          long was = -1;
          MPI_OK(MPI_Compare_and_swap(&next, &seen, &was, MPI_LONG, t, cas_at(), win));
          MPI_OK(MPI_Win_flush(t, win));
          if (was == seen) break;
          CHECK(was > seen, "counter at rank %d went back from %ld to %ld", t, seen, was);
          seen = was;
        }
        if (t == 0) wins_seen[nwins++] = seen;
        add[SHARED] += 1;
        break;
      }
      default: {
        /* Every byte differs from the row's last value (and from the -1 a get starts from). */
        const long v = (long)((unsigned long)(it * t_size + t_rank + 1) * 0x9E3779B97F4A7C15ul);
        const int i = it % ROW;
        MPI_OK(MPI_Put(&v, 1, MPI_LONG, t, row_at(t_rank, i), 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(t, win));
        long back = -1;
        MPI_OK(MPI_Get(&back, 1, MPI_LONG, t, row_at(t_rank, i), 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(back == v, "row %d of origin %d at rank %d reads %lx after a put of %lx", i, t_rank,
              t, back, v);
        break;
      }
    }
  }
  MPI_OK(MPI_Win_unlock_all(win));

  /* Every counter: the sum of what every origin added to it. */
  long* want = malloc((size_t)t_size * (SHARED + 1) * sizeof(long));
  MPI_OK(MPI_Allreduce(added, want, t_size * (SHARED + 1), MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  t_sync_own(win);
  const long* mine = want + (size_t)t_rank * (SHARED + 1);
  for (int i = 0; i <= SHARED; i++)
    CHECK(mem[i] == mine[i], "rank %d element %d is %ld, want %ld (an update lost or doubled)",
          t_rank, i, mem[i], mine[i]);
  /* The compare_and_swap wins at rank 0 each saw a value nobody else's win saw. */
  for (int i = 1; i < nwins; i++)
    CHECK(wins_seen[i] > wins_seen[i - 1], "two wins at rank 0 saw %ld then %ld", wins_seen[i - 1],
          wins_seen[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  free_window(&w);
  free(want);
  free(wins_seen);
  free(added);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  run(0);
  run(1);
  return t_finish("served_race");
}
