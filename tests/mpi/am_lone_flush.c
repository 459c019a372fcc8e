/* One short operation, then a flush toward its target: the commonest flush there is, which the
 * message path sends without the general path's machinery (Window::am_express_flush). Every
 * origin, toward every target, every flavor:
 *  - puts of 1025 B (not a batch record: the general path), then 1 B to 1024 B (around the
 *    short request's 40 bytes of data, the late reply's 256, the batch record's 1 KiB), each
 *    flushed and read back by a get that is flushed alone (its reply posted after the request
 *    up to 256 bytes, before it above); the target checks every byte the last round left;
 *  - single-element accumulates (int64 sum, double sum, int32 replace) flushed one by one and
 *    racing the other origins' on one counter per target;
 *  - on words only this origin touches at each target: compare_and_swap that succeeds and one
 *    that fails, fetch_and_op (sum, then MPI_NO_OP) and a get_accumulate of two elements, each
 *    flushed alone, every fetched value checked exactly;
 *  - exclusive lock epochs whose first flush must carry the lock request (the general path)
 *    and whose later ones need not;
 *  - flush_local and flush_all between them;
 * then every target checks every byte each origin left in its slot, its words and the
 * counters. */
#include "common.h"

enum { MAXB = 1025, ROUNDS = 6, ADDS = 40, STRIDE = 1064 };
static const int sizes[] = {1025, 1, 8, 40, 41, 256, 257, 1024};
enum { NSIZES = (int)(sizeof sizes / sizeof sizes[0]) };

/* Per rank: a counter of int64 sums, one of double sums, one replaced by int32; then per
 * origin a slot of MAXB bytes (padded to 1032) and its own words: a compare_and_swap target,
 * a fetch_and_op sum and two get_accumulate sums. */
static MPI_Aint slot_off(int o) {
  return 24 + (MPI_Aint)o * STRIDE;
}
static MPI_Aint word_off(int o, int k) {
  return slot_off(o) + 1032 + 8 * k;
}

/* What an origin's slot holds after a round of puts of every size with patterns from `e0` on. */
static void slot_after(unsigned char* want, int o, int t, int e0) {
  for (int s = 0; s < NSIZES; s++)
    t_fill(want, (size_t)sizes[s], o, t, e0 + s);
}

static void run(enum t_flavor f) {
  struct t_win w;
  const MPI_Aint bytes = slot_off(t_size);
  if (!t_win_create(&w, f, bytes, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, (size_t)bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char out[MAXB], back[MAXB];
  int64_t* swapped = calloc((size_t)t_size, sizeof(int64_t));  /* per target: the CAS word */
  int64_t* summed = calloc((size_t)t_size, sizeof(int64_t));   /* the fetch_and_op word */
  int64_t* pair = calloc((size_t)t_size * 2, sizeof(int64_t)); /* the get_accumulate words */
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < t_size; k++) {
      const int t = (t_rank + k) % t_size;
      const MPI_Aint slot = t_disp(&w, t, slot_off(t_rank), 1);
      for (int s = 0; s < NSIZES; s++) {
        const int n = sizes[s];
        t_fill(out, (size_t)n, t_rank, t, round * NSIZES + s);
        MPI_OK(MPI_Put(out, n, MPI_BYTE, t, slot, n, MPI_BYTE, w.win));
        MPI_OK(MPI_Win_flush(t, w.win));
        memset(back, 0xEE, sizeof back);
        MPI_OK(MPI_Get(back, n, MPI_BYTE, t, slot, n, MPI_BYTE, w.win));
        MPI_OK(MPI_Win_flush(t, w.win));
        for (int i = 0; i < n; i++)
          CHECK(back[i] == out[i], "%s round %d target %d: %d-byte get byte %d is %d, want %d",
                t_flavor_names[f], round, t, n, i, back[i], out[i]);
        CHECK(n == MAXB || back[n] == 0xEE, "%s: a %d-byte get wrote past its end",
              t_flavor_names[f], n);
      }
      for (int a = 0; a < ADDS; a++) {
        const int64_t one = 1;
        const double half = 0.5;
        const int32_t mark = t_rank + 1;
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, t_disp(&w, t, 0, 1), 1, MPI_INT64_T, MPI_SUM,
                              w.win));
        MPI_OK(MPI_Win_flush(t, w.win));
        MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, t, t_disp(&w, t, 8, 1), 1, MPI_DOUBLE, MPI_SUM,
                              w.win));
        MPI_OK(MPI_Win_flush(t, w.win));
        MPI_OK(MPI_Accumulate(&mark, 1, MPI_INT32_T, t, t_disp(&w, t, 16, 1), 1, MPI_INT32_T,
                              MPI_REPLACE, w.win));
        MPI_OK(MPI_Win_flush(t, w.win));
      }
      int64_t seen = -1, none = 0;
      MPI_OK(MPI_Fetch_and_op(&none, &seen, MPI_INT64_T, t, t_disp(&w, t, 0, 1), MPI_NO_OP, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(seen >= (int64_t)(round + 1) * ADDS && seen <= (int64_t)ROUNDS * t_size * ADDS,
            "%s: counter at %d reads %lld", t_flavor_names[f], t, (long long)seen);

      /* This origin's own words at t: every fetched value is known. */
      const int64_t next = (int64_t)round * 1000 + t_rank * 10 + 1, wrong = -7;
      int64_t old = -1;
      MPI_OK(MPI_Compare_and_swap(&next, &swapped[t], &old, MPI_INT64_T, t,
                                  t_disp(&w, t, word_off(t_rank, 0), 1), w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(old == swapped[t], "%s: compare_and_swap at %d fetched %lld, want %lld",
            t_flavor_names[f], t, (long long)old, (long long)swapped[t]);
      swapped[t] = next;
      MPI_OK(MPI_Compare_and_swap(&wrong, &wrong, &old, MPI_INT64_T, t,
                                  t_disp(&w, t, word_off(t_rank, 0), 1), w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(old == next, "%s: failing compare_and_swap at %d fetched %lld, want %lld",
            t_flavor_names[f], t, (long long)old, (long long)next);
      const int64_t inc = round + 3;
      MPI_OK(MPI_Fetch_and_op(&inc, &old, MPI_INT64_T, t, t_disp(&w, t, word_off(t_rank, 1), 1),
                              MPI_SUM, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(old == summed[t], "%s: fetch_and_op at %d fetched %lld, want %lld", t_flavor_names[f],
            t, (long long)old, (long long)summed[t]);
      summed[t] += inc;
      MPI_OK(MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, t, t_disp(&w, t, word_off(t_rank, 1), 1),
                              MPI_NO_OP, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(old == summed[t], "%s: MPI_NO_OP fetch at %d read %lld, want %lld", t_flavor_names[f],
            t, (long long)old, (long long)summed[t]);
      const int64_t incs[2] = {round + 1, -(round + 2)};
      int64_t got[2] = {-1, -1};
      MPI_OK(MPI_Get_accumulate(incs, 2, MPI_INT64_T, got, 2, MPI_INT64_T, t,
                                t_disp(&w, t, word_off(t_rank, 2), 1), 2, MPI_INT64_T, MPI_SUM,
                                w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      CHECK(got[0] == pair[2 * t] && got[1] == pair[2 * t + 1],
            "%s: get_accumulate at %d fetched %lld %lld, want %lld %lld", t_flavor_names[f], t,
            (long long)got[0], (long long)got[1], (long long)pair[2 * t],
            (long long)pair[2 * t + 1]);
      pair[2 * t] += incs[0];
      pair[2 * t + 1] += incs[1];
    }
    /* The slot toward the right neighbour once more, completed locally, then by flush_all. */
    const int right = (t_rank + 1) % t_size;
    t_fill(out, 64, t_rank, right, 1000 + round);
    MPI_OK(MPI_Put(out, 64, MPI_BYTE, right, t_disp(&w, right, slot_off(t_rank), 1), 64, MPI_BYTE,
                   w.win));
    MPI_OK(MPI_Win_flush_local(right, w.win));
    memset(out, 0, 64);
    MPI_OK(MPI_Win_flush_all(w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* Exclusive lock epochs toward the left neighbour: the first flush carries the lock. */
  const int left = (t_rank + t_size - 1) % t_size;
  const MPI_Aint lslot = t_disp(&w, left, slot_off(t_rank), 1);
  for (int e = 0; e < ROUNDS; e++) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, w.win));
    for (int s = 0; s < NSIZES; s++) {
      const int n = sizes[s];
      t_fill(out, (size_t)n, t_rank, left, 2000 + e * NSIZES + s);
      MPI_OK(MPI_Put(out, n, MPI_BYTE, left, lslot, n, MPI_BYTE, w.win));
      MPI_OK(MPI_Win_flush(left, w.win));
      MPI_OK(MPI_Get(back, n, MPI_BYTE, left, lslot, n, MPI_BYTE, w.win));
      MPI_OK(MPI_Win_flush(left, w.win));
      CHECK(memcmp(back, out, (size_t)n) == 0, "%s lock epoch %d: %d bytes read back differ",
            t_flavor_names[f], e, n);
    }
    MPI_OK(MPI_Win_unlock(left, w.win));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Every origin's last bytes and words at this target, and the counters. */
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, w.win));
  MPI_OK(MPI_Win_sync(w.win));
  const int right = (t_rank + 1) % t_size;
  for (int o = 0; o < t_size; o++) {
    const unsigned char* got = (const unsigned char*)w.base + slot_off(o);
    unsigned char want[MAXB];
    if (o == right) { /* its lock epochs came last */
      slot_after(want, o, t_rank, 2000 + (ROUNDS - 1) * NSIZES);
    } else {
      slot_after(want, o, t_rank, (ROUNDS - 1) * NSIZES);
      if ((o + 1) % t_size == t_rank) t_fill(want, 64, o, t_rank, 1000 + ROUNDS - 1);
    }
    for (int i = 0; i < MAXB; i++)
      CHECK(got[i] == want[i], "%s: origin %d's slot byte %d is %d, want %d", t_flavor_names[f], o,
            i, got[i], want[i]);
    int64_t words[4];
    memcpy(words, w.base + word_off(o, 0), sizeof words);
    int64_t fop = 0, ga0 = 0, ga1 = 0;
    for (int r = 0; r < ROUNDS; r++) {
      fop += r + 3;
      ga0 += r + 1;
      ga1 -= r + 2;
    }
    CHECK(words[0] == (int64_t)(ROUNDS - 1) * 1000 + o * 10 + 1 && words[1] == fop &&
              words[2] == ga0 && words[3] == ga1,
          "%s: origin %d's words %lld %lld %lld %lld", t_flavor_names[f], o, (long long)words[0],
          (long long)words[1], (long long)words[2], (long long)words[3]);
  }
  int64_t sum;
  double dsum;
  int32_t mark;
  memcpy(&sum, w.base, 8);
  memcpy(&dsum, w.base + 8, 8);
  memcpy(&mark, w.base + 16, 4);
  CHECK(sum == (int64_t)ROUNDS * t_size * ADDS, "%s: int64 counter %lld, want %lld",
        t_flavor_names[f], (long long)sum, (long long)ROUNDS * t_size * ADDS);
  CHECK(dsum == 0.5 * ROUNDS * t_size * ADDS, "%s: double counter %g, want %g", t_flavor_names[f],
        dsum, 0.5 * ROUNDS * t_size * ADDS);
  CHECK(mark >= 1 && mark <= t_size, "%s: replaced int32 %d", t_flavor_names[f], (int)mark);
  MPI_OK(MPI_Win_unlock(t_rank, w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  free(swapped);
  free(summed);
  free(pair);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("am_lone_flush");
}
