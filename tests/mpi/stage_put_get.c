/* Puts, gets and accumulates with results toward node peers' private memory under fence and
 * PSCW, which osprey may leave in the target's staging area (puts under both, the others under
 * fence: the target leaves the old values there and the origin copies them out). Windows over
 * malloc memory (created, and dynamic with one attached region), every rank origin and target,
 * every epoch:
 * - every origin writes its own row at every target in pieces of 1, 8, 128 (1 KiB), 512 (4 KiB)
 *   and 1024 (8 KiB) longs and as 8-long puts, some staged and some queued, and reads back in
 *   the next epoch the row a peer wrote there, through a strided type (the direct way) and in
 *   the same pieces;
 * - fetch_and_op adds 1 to one counter per target from every origin, in odd epochs with a
 *   strided accumulate (which does not stage) toward the same target halfway (the origin applies
 *   what it staged before it itself): the old values every origin got must be exactly the
 *   numbers before the counter's final value, each once, and rise in each origin's program
 *   order;
 * - get_accumulate on a per-origin array: a sum, a second sum, then MPI_NO_OP, whose old values
 *   must show the sums before them; compare_and_swap on a per-origin slot, one that matches and
 *   one that no longer does; in some epochs all of these are applied by the origin itself
 *   before a strided accumulate that follows them.
 * Variants: a tiny staging area (most of it goes the direct way), staging limits of 1 and 8 KiB.
 * Usage: stage_put_get [create|dynamic] (default: both). */
#include "private_window.h"

enum { kRow = 2048, kFill = 1024, kAcc = 16, kRounds = 20, kEpochs = 5, kMaxRanks = 16 };

/* The window: a counter, then per origin a row, an array for get_accumulate, a filler area
 * and a swap slot. */
static size_t row_at(int o) {
  return 1 + (size_t)o * kRow;
}
static size_t acc_at(int o) {
  return 1 + (size_t)t_size * kRow + (size_t)o * kAcc;
}
static size_t fill_at(int o) {
  return acc_at(t_size) + (size_t)o * kFill;
}
static size_t cas_at(int o) {
  return fill_at(t_size) + (size_t)o;
}
static size_t mem_longs(void) {
  return cas_at(t_size);
}

/* What origin o's row at target t holds after epoch e. */
static long row_value(int e, int o, int t, int j) {
  return (((long)e * kMaxRanks + o) * kMaxRanks + t) * 1024 + j + 1;
}

/* Origin buffers, untouched until the epoch ends. */
static long out[kMaxRanks][kRow], in[kMaxRanks][kRow], strided[kMaxRanks][kRow / 2];
static long fetched[kMaxRanks][kRounds], one = 1, ones[kAcc], noop[kAcc];
static long sum1[kMaxRanks][kAcc], sum2[kMaxRanks][kAcc], peek[kMaxRanks][kAcc];
static long cas_new[kMaxRanks][2], cas_cmp[kMaxRanks][2], cas_old[kMaxRanks][2];
static long filler[kFill / 2];
static MPI_Datatype every_other, every_other_fill;

/* The pieces a row moves in, [start, start + len) in longs, in the order they are issued. Four
 * puts or gets per target and epoch at most stage, those of 4 and 8 KiB only where the limit is
 * 8 KiB, and only while half the target's area has room: the rest wait in the put and get
 * queue, issued before the target applies its area. */
static const int kPieces[][2] = {{137, 512}, {0, 1}, {649, 1024}, {1, 8}, {9, 128}, {1673, 375}};

static void put_row(const Win* w, int t, int e) {
  for (int j = 0; j < kRow; ++j)
    out[t][j] = row_value(e, t_rank, t, j);
  size_t row = row_at(t_rank);
  for (size_t p = 0; p < sizeof kPieces / sizeof kPieces[0]; ++p) {
    int start = kPieces[p][0], len = kPieces[p][1];
    if (start == 1673) { /* the rest as 8-long puts, then the odd tail */
      for (; len >= 8; start += 8, len -= 8)
        MPI_OK(MPI_Put(out[t] + start, 8, MPI_LONG, t, disp_of(w, t, row + (size_t)start), 8,
                       MPI_LONG, w->win));
    }
    if (len > 0)
      MPI_OK(MPI_Put(out[t] + start, len, MPI_LONG, t, disp_of(w, t, row + (size_t)start), len,
                     MPI_LONG, w->win));
  }
}

static void get_row(const Win* w, int t) {
  int peer = (t_rank + 1) % t_size;
  size_t row = row_at(peer);
  MPI_OK(MPI_Get(strided[t], kRow / 2, MPI_LONG, t, disp_of(w, t, row), 1, every_other, w->win));
  for (size_t p = 0; p < sizeof kPieces / sizeof kPieces[0]; ++p) {
    int start = kPieces[p][0], len = kPieces[p][1];
    MPI_OK(MPI_Get(in[t] + start, len, MPI_LONG, t, disp_of(w, t, row + (size_t)start), len,
                   MPI_LONG, w->win));
  }
}

static void check_row(int t, int e) {
  int peer = (t_rank + 1) % t_size;
  for (int j = 0; j < kRow; ++j)
    CHECK(in[t][j] == row_value(e, peer, t, j),
          "epoch %d: row of %d at %d element %d read %ld, "
          "want %ld",
          e, peer, t, j, in[t][j], row_value(e, peer, t, j));
  for (int j = 0; j < kRow / 2; ++j)
    CHECK(strided[t][j] == row_value(e, peer, t, 2 * j),
          "epoch %d: strided read of %d's row at %d element %d is %ld, want %ld", e, peer, t, j,
          strided[t][j], row_value(e, peer, t, 2 * j));
}

/* A strided accumulate (it does not stage) of 1 to every other element of this origin's filler
 * area at t: the origin first applies what it staged toward t itself. */
static void fill(const Win* w, int t) {
  MPI_OK(MPI_Accumulate(filler, kFill / 2, MPI_LONG, t, disp_of(w, t, fill_at(t_rank)), 1,
                        every_other_fill, MPI_SUM, w->win));
}

/* How many fills the epochs up to e made: halfway in odd ones, at the end when e % 4 == 2. */
static long fills_until(int e) {
  long n = 0;
  for (int k = 0; k <= e; ++k)
    n += (k % 2) + (k % 4 == 2);
  return n;
}

/* Fetch_and_op on target t's counter (a fill halfway in odd epochs), get_accumulates on this
 * origin's array at t, compare_and_swap on its slot (a fill after them when e % 4 == 2). */
static void fetch_ops(const Win* w, int t, int e) {
  for (int r = 0; r < kRounds; ++r) {
    MPI_OK(MPI_Fetch_and_op(&one, &fetched[t][r], MPI_LONG, t, disp_of(w, t, 0), MPI_SUM, w->win));
    if (r == kRounds / 2 && e % 2) fill(w, t);
  }
  size_t acc = acc_at(t_rank);
  MPI_OK(MPI_Get_accumulate(ones, kAcc, MPI_LONG, sum1[t], kAcc, MPI_LONG, t, disp_of(w, t, acc),
                            kAcc, MPI_LONG, MPI_SUM, w->win));
  MPI_OK(MPI_Get_accumulate(ones, kAcc, MPI_LONG, sum2[t], kAcc, MPI_LONG, t, disp_of(w, t, acc),
                            kAcc, MPI_LONG, MPI_SUM, w->win));
  MPI_OK(MPI_Get_accumulate(noop, kAcc, MPI_LONG, peek[t], kAcc, MPI_LONG, t, disp_of(w, t, acc),
                            kAcc, MPI_LONG, MPI_NO_OP, w->win));
  /* This origin's slot at t holds e: a swap to e + 1 that matches, then one that does not. */
  cas_new[t][0] = e + 1;
  cas_cmp[t][0] = e;
  cas_new[t][1] = -1;
  cas_cmp[t][1] = e;
  for (int k = 0; k < 2; ++k)
    MPI_OK(MPI_Compare_and_swap(&cas_new[t][k], &cas_cmp[t][k], &cas_old[t][k], MPI_LONG, t,
                                disp_of(w, t, cas_at(t_rank)), w->win));
  if (e % 4 == 2) fill(w, t); /* everything above applied by this origin itself */
}

/* After the epoch (the fetch_ops of epoch e): the old values of every counter, gathered. */
static void check_fetches(int e) {
  static long all[kMaxRanks][kMaxRanks][kRounds]; /* [origin][target][round] */
  MPI_OK(MPI_Allgather(fetched, kMaxRanks * kRounds, MPI_LONG, all, kMaxRanks * kRounds, MPI_LONG,
                       MPI_COMM_WORLD));
  const long n = (long)t_size * kRounds, base = (long)e * n;
  for (int t = 0; t < t_size; ++t) {
    static char seen[kMaxRanks * kRounds];
    memset(seen, 0, sizeof seen);
    for (int o = 0; o < t_size; ++o)
      for (int r = 0; r < kRounds; ++r) {
        long v = all[o][t][r] - base;
        CHECK(v >= 0 && v < n && !seen[v],
              "epoch %d: origin %d round %d fetched %ld from %d's "
              "counter (seen before, or outside %ld..%ld)",
              e, o, r, all[o][t][r], t, base, base + n - 1);
        seen[v] = 1;
        CHECK(r == 0 || all[o][t][r] > all[o][t][r - 1],
              "epoch %d: origin %d's fetches from %d out of order at round %d", e, o, t, r);
      }
  }
  for (int t = 0; t < t_size; ++t)
    for (int j = 0; j < kAcc; ++j) {
      long want = 2L * e;
      CHECK(sum1[t][j] == want && sum2[t][j] == want + 1 && peek[t][j] == want + 2,
            "epoch %d target %d element %d: get_accumulate saw %ld, %ld, %ld, want %ld, %ld, %ld",
            e, t, j, sum1[t][j], sum2[t][j], peek[t][j], want, want + 1, want + 2);
    }
  for (int t = 0; t < t_size; ++t)
    CHECK(cas_old[t][0] == e && cas_old[t][1] == e + 1,
          "epoch %d target %d: compare_and_swap saw %ld, %ld, want %d, %d", e, t, cas_old[t][0],
          cas_old[t][1], e, e + 1);
}

/* This rank's own memory after epoch e's fetch_ops. */
static void check_mine(const Win* w, int e) {
  for (int o = 0; o < t_size; ++o)
    CHECK(w->mem[cas_at(o)] == e + 1, "epoch %d: origin %d's swap slot is %ld, want %d", e, o,
          w->mem[cas_at(o)], e + 1);
  CHECK(w->mem[0] == (long)(e + 1) * t_size * kRounds, "epoch %d: counter is %ld, want %ld", e,
        w->mem[0], (long)(e + 1) * t_size * kRounds);
  for (int o = 0; o < t_size; ++o)
    for (int j = 0; j < kAcc; ++j)
      CHECK(w->mem[acc_at(o) + (size_t)j] == 2L * (e + 1),
            "epoch %d: origin %d's array element %d "
            "is %ld, want %ld",
            e, o, j, w->mem[acc_at(o) + (size_t)j], 2L * (e + 1));
  for (int o = 0; o < t_size; ++o)
    for (int j = 0; j < kFill; ++j) {
      long want = j % 2 ? 0 : fills_until(e);
      CHECK(w->mem[fill_at(o) + (size_t)j] == want,
            "epoch %d: origin %d's filler element %d is %ld, want %ld", e, o, j,
            w->mem[fill_at(o) + (size_t)j], want);
    }
}

static void run(int dynamic, int pscw) {
  Win w;
  make_window(&w, mem_longs(), dynamic);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (!pscw) MPI_OK(MPI_Win_fence(0, w.win));
  for (int e = 0; e <= kEpochs; ++e) {
    /* Epoch e writes rows (e < kEpochs) and reads those of epoch e - 1; then the counters. */
    if (pscw) {
      MPI_OK(MPI_Win_post(world, 0, w.win));
      MPI_OK(MPI_Win_start(world, 0, w.win));
    }
    for (int k = 0; k < t_size; ++k) {
      int t = (t_rank + k) % t_size;
      if (e > 0) get_row(&w, t);
    }
    if (pscw) {
      MPI_OK(MPI_Win_complete(w.win));
      MPI_OK(MPI_Win_wait(w.win));
    } else {
      MPI_OK(MPI_Win_fence(0, w.win));
    }
    for (int t = 0; t < t_size && e > 0; ++t)
      check_row(t, e - 1);
    if (e == kEpochs) break;
    if (pscw) {
      MPI_OK(MPI_Win_post(world, 0, w.win));
      MPI_OK(MPI_Win_start(world, 0, w.win));
    }
    for (int k = 0; k < t_size; ++k)
      put_row(&w, (t_rank + k) % t_size, e);
    for (int k = 0; k < t_size; ++k)
      fetch_ops(&w, (t_rank + k) % t_size, e);
    if (pscw) {
      MPI_OK(MPI_Win_complete(w.win));
      MPI_OK(MPI_Win_wait(w.win));
    } else {
      MPI_OK(MPI_Win_fence(0, w.win));
    }
    check_fetches(e);
    check_mine(&w, e);
    for (int o = 0; o < t_size; ++o)
      for (int j = 0; j < kRow; ++j)
        CHECK(w.mem[row_at(o) + (size_t)j] == row_value(e, o, t_rank, j),
              "epoch %d: origin %d's row element %d here is %ld, want %ld", e, o, j,
              w.mem[row_at(o) + (size_t)j], row_value(e, o, t_rank, j));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank checked before the next epoch writes */
  }
  if (!pscw) MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  MPI_Group_free(&world);
  free_window(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size <= kMaxRanks, "at most %d ranks", kMaxRanks);
  for (int j = 0; j < kAcc; ++j)
    ones[j] = 1;
  MPI_OK(MPI_Type_vector(kRow / 2, 1, 2, MPI_LONG, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  MPI_OK(MPI_Type_vector(kFill / 2, 1, 2, MPI_LONG, &every_other_fill));
  MPI_OK(MPI_Type_commit(&every_other_fill));
  for (int j = 0; j < kFill / 2; ++j)
    filler[j] = 1;
  const char* which = argc > 1 ? argv[1] : "both";
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    if (strcmp(which, "both") != 0 && strcmp(which, dynamic ? "dynamic" : "create") != 0) continue;
    run(dynamic, 0);
    run(dynamic, 1);
  }
  MPI_OK(MPI_Type_free(&every_other));
  MPI_OK(MPI_Type_free(&every_other_fill));
  return t_finish("stage_put_get");
}
