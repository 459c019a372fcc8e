/* Accumulates toward node peers' private memory under fence and PSCW, which osprey may leave in
 * the target's staging area for the target to apply when the epoch ends. Windows over malloc
 * memory (created, and dynamic with one attached region), every rank origin and target:
 * - a shared counter array that every origin adds to, with whole-array accumulates of several
 *   sizes and single-element fetch_and_op racing them: every sum must come out exact;
 * - per origin, a private row where the order of its own operations shows: sums, then a
 *   MPI_REPLACE, then more sums, with a fetch_and_op (which reads at once) in between that must
 *   see everything before it; enough of them that the staging area fills and the rest goes
 *   the direct way, after the staged ones (a variant gives the area room for everything);
 * - arrays of 16 and 32 KiB, which under fence stage by reference (the target reads the
 *   origin's buffer): a shared one every origin adds to, and per origin a sum, a replace and
 *   sums, with a fetch after them in some epochs;
 * - the values read in the next epoch by every rank (nothing applied late), and an epoch where
 *   one rank alone accumulates.
 * Usage: acc_stage [create|dynamic] (default: both). */
#include "private_window.h"

enum { kShared = 64, kRow = 128, kBig = 4096, kEpochs = 6, kRounds = 40, kRowRounds = 4 };

/* What the shared counters hold, over the epochs of the current window. */
static long want_shared[kShared];

/* kShared + size * kRow + (size + 1) * kBig longs. */
static void open_window(Win* w, int dynamic) {
  memset(want_shared, 0, sizeof want_shared);
  make_window(w, kShared + (size_t)t_size * kRow + (size_t)(t_size + 1) * kBig, dynamic);
}

/* Where origin o's row starts at every target. */
static size_t row_of(int o) {
  return kShared + (size_t)o * kRow;
}

/* Results of fetch_and_op per target, valid once the epoch ended: the shared counters' (not
 * checked) and the row's (each must see its own origin's replace and sums before it). */
static long scratch[16][kRounds], fetched[16][kRounds];
/* Origin buffers: they must stay as they are until the epoch ends. */
static long ones[kShared], one = 1, noop = 0, add[kRow], rep[kRow];

/* The shared big array, and origin o's big array, at every target. */
static size_t shared_big(void) {
  return kShared + (size_t)t_size * kRow;
}
static size_t big_of(int o) {
  return shared_big() + (size_t)(o + 1) * kBig;
}

static long ones_big[kBig], add_big[kBig], rep_big[kBig], fetched_big[16];

static void fill_origin(int e) {
  for (int j = 0; j < kBig; ++j) {
    ones_big[j] = 1;
    add_big[j] = 3L * j + 1;
    rep_big[j] = 100000L * e + j;
  }
  for (int i = 0; i < kShared; ++i)
    ones[i] = 1;
  for (int j = 0; j < kRow; ++j) {
    add[j] = j + 1;
    rep[j] = 1000L * e + j;
  }
}

/* Fetches come in even epochs only: a fetch_and_op applies at once, so this origin first applies
 * whatever it left staged toward that target; odd epochs leave everything they can staged. */
static int fetches(int e) {
  return e % 2 == 0;
}

/* What this origin does toward target t in epoch e (fill_origin set its data); check_epoch
 * knows what it adds up to. */
static void epoch_ops(const Win* w, int t, int e) {
  /* Own row: sums, a replace with 1000*e + j, sums on the first four elements (each followed by
   * a fetch that must see the replace and the sums since), then sums on the rest. */
  size_t row = row_of(t_rank);
  for (int r = 0; r < kRowRounds; ++r)
    MPI_OK(MPI_Accumulate(add, kRow, MPI_LONG, t, disp_of(w, t, row), kRow, MPI_LONG, MPI_SUM,
                          w->win));
  MPI_OK(MPI_Accumulate(rep, kRow, MPI_LONG, t, disp_of(w, t, row), kRow, MPI_LONG, MPI_REPLACE,
                        w->win));
  for (int r = 0; r < kRounds; ++r) {
    MPI_OK(MPI_Accumulate(add, 4, MPI_LONG, t, disp_of(w, t, row), 4, MPI_LONG, MPI_SUM, w->win));
    if (fetches(e))
      MPI_OK(MPI_Fetch_and_op(&noop, &fetched[t][r], MPI_LONG, t, disp_of(w, t, row + 2), MPI_NO_OP,
                              w->win));
  }
  for (int r = 0; r < kRowRounds; ++r)
    MPI_OK(MPI_Accumulate(add + 4, kRow - 4, MPI_LONG, t, disp_of(w, t, row + 4), kRow - 4,
                          MPI_LONG, MPI_SUM, w->win));
  /* Big arrays: the shared one twice, then this origin's own: sum, replace, sum, a fetch in
   * some epochs (it applies the staged ones first), a sum on the second half. */
  for (int r = 0; r < 2; ++r)
    MPI_OK(MPI_Accumulate(ones_big, kBig, MPI_LONG, t, disp_of(w, t, shared_big()), kBig, MPI_LONG,
                          MPI_SUM, w->win));
  size_t big = big_of(t_rank);
  MPI_OK(MPI_Accumulate(add_big, kBig, MPI_LONG, t, disp_of(w, t, big), kBig, MPI_LONG, MPI_SUM,
                        w->win));
  MPI_OK(MPI_Accumulate(rep_big, kBig, MPI_LONG, t, disp_of(w, t, big), kBig, MPI_LONG, MPI_REPLACE,
                        w->win));
  MPI_OK(MPI_Accumulate(add_big, kBig, MPI_LONG, t, disp_of(w, t, big), kBig, MPI_LONG, MPI_SUM,
                        w->win));
  if (fetches(e))
    MPI_OK(MPI_Fetch_and_op(&noop, &fetched_big[t], MPI_LONG, t, disp_of(w, t, big + 5), MPI_NO_OP,
                            w->win));
  MPI_OK(MPI_Accumulate(add_big + kBig / 2, kBig / 2, MPI_LONG, t, disp_of(w, t, big + kBig / 2),
                        kBig / 2, MPI_LONG, MPI_SUM, w->win));
  /* Shared counters: sums of several lengths, racing other origins' sums and fetch_and_ops. */
  for (int r = 0; r < kRounds; ++r) {
    int len = 1 + (r * 7) % kShared;
    MPI_OK(
        MPI_Accumulate(ones, len, MPI_LONG, t, disp_of(w, t, 0), len, MPI_LONG, MPI_SUM, w->win));
    if (fetches(e) && r % 2)
      MPI_OK(MPI_Fetch_and_op(&one, &scratch[t][r], MPI_LONG, t,
                              disp_of(w, t, (size_t)(r % kShared)), MPI_SUM, w->win));
  }
}

/* After epoch e: what this origin fetched, the counters every origin added to this rank, and
 * every origin's row. */
static void check_epoch(const Win* w, int e) {
  for (int t = 0; t < t_size && fetches(e); ++t)
    for (int r = 0; r < kRounds; ++r)
      CHECK(fetched[t][r] == 1000L * e + 2 + 3L * (r + 1),
            "epoch %d target %d round %d: fetched %ld, want %ld", e, t, r, fetched[t][r],
            1000L * e + 2 + 3L * (r + 1));
  for (int r = 0; r < kRounds; ++r) {
    int len = 1 + (r * 7) % kShared;
    for (int i = 0; i < len; ++i)
      want_shared[i] += t_size;
    if (fetches(e) && r % 2) want_shared[r % kShared] += t_size;
  }
  for (int i = 0; i < kShared; ++i)
    CHECK(w->mem[i] == want_shared[i], "epoch %d: counter %d is %ld, want %ld", e, i, w->mem[i],
          want_shared[i]);
  for (int t = 0; t < t_size && fetches(e); ++t)
    CHECK(fetched_big[t] == 100000L * e + 5 + 16,
          "epoch %d target %d: fetched %ld from the big "
          "array, want %ld",
          e, t, fetched_big[t], 100000L * e + 5 + 16);
  for (int j = 0; j < kBig; ++j)
    CHECK(w->mem[shared_big() + (size_t)j] == 2L * t_size * (e + 1),
          "epoch %d: shared big element %d is %ld, want %ld", e, j,
          w->mem[shared_big() + (size_t)j], 2L * t_size * (e + 1));
  for (int o = 0; o < t_size; ++o)
    for (int j = 0; j < kBig; ++j) {
      long want = 100000L * e + j + (3L * j + 1) * (j >= kBig / 2 ? 2 : 1);
      long got = w->mem[big_of(o) + (size_t)j];
      CHECK(got == want, "epoch %d: origin %d big element %d is %ld, want %ld", e, o, j, got, want);
    }
  for (int o = 0; o < t_size; ++o)
    for (int j = 0; j < kRow; ++j) {
      long want = 1000L * e + j + (long)(j < 4 ? kRounds : kRowRounds) * (j + 1);
      long got = w->mem[row_of(o) + (size_t)j];
      CHECK(got == want, "epoch %d: origin %d row element %d is %ld, want %ld", e, o, j, got, want);
    }
}

/* Every rank reads a peer's counters in the epoch after: they must be there. */
static void check_peer(const Win* w, int e) {
  int t = (t_rank + 1) % t_size;
  long got[kShared], mine[kShared];
  memcpy(mine, w->mem, sizeof mine); /* after the next fence, peers may add to it again */
  MPI_OK(MPI_Get(got, kShared, MPI_LONG, t, disp_of(w, t, 0), kShared, MPI_LONG, w->win));
  MPI_OK(MPI_Win_fence(0, w->win));
  for (int i = 0; i < kShared; ++i)
    CHECK(got[i] == mine[i], "epoch %d: peer %d counter %d read %ld, mine %ld", e, t, i, got[i],
          mine[i]);
}

static void run_fence(int dynamic) {
  Win w;
  open_window(&w, dynamic);
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int e = 0; e < kEpochs; ++e) {
    fill_origin(e);
    for (int k = 0; k < t_size; ++k)
      epoch_ops(&w, (t_rank + k) % t_size, e);
    MPI_OK(MPI_Win_fence(0, w.win));
    check_epoch(&w, e);
    check_peer(&w, e);
  }
  /* An epoch where only rank 0 accumulates (a small and a large array): every target must
   * still apply what it was left, though it staged nothing itself. */
  if (t_rank == 0)
    for (int t = 1; t < t_size; ++t) {
      MPI_OK(MPI_Accumulate(ones, 1, MPI_LONG, t, disp_of(&w, t, 0), 1, MPI_LONG, MPI_SUM, w.win));
      MPI_OK(MPI_Accumulate(ones_big, kBig, MPI_LONG, t, disp_of(&w, t, shared_big()), kBig,
                            MPI_LONG, MPI_SUM, w.win));
    }
  MPI_OK(MPI_Win_fence(0, w.win));
  const long solo = t_rank == 0 ? 0 : 1;
  CHECK(w.mem[0] == want_shared[0] + solo, "solo epoch: counter 0 is %ld, want %ld", w.mem[0],
        want_shared[0] + solo);
  for (int j = 0; j < kBig; ++j)
    CHECK(w.mem[shared_big() + (size_t)j] == 2L * t_size * kEpochs + solo,
          "solo epoch: shared big element %d is %ld, want %ld", j, w.mem[shared_big() + (size_t)j],
          2L * t_size * kEpochs + solo);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  free_window(&w);
}

static void run_pscw(int dynamic) {
  Win w;
  open_window(&w, dynamic);
  MPI_Group world, all;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  all = world;
  for (int e = 0; e < kEpochs; ++e) {
    MPI_OK(MPI_Win_post(all, 0, w.win));
    MPI_OK(MPI_Win_start(all, 0, w.win));
    fill_origin(e);
    for (int k = 0; k < t_size; ++k)
      epoch_ops(&w, (t_rank + k) % t_size, e);
    MPI_OK(MPI_Win_complete(w.win));
    if (e % 2) {
      int done = 0;
      while (!done)
        MPI_OK(MPI_Win_test(w.win, &done));
    } else {
      MPI_OK(MPI_Win_wait(w.win));
    }
    check_epoch(&w, e);
    MPI_OK(MPI_Win_fence(0, w.win));
    check_peer(&w, e);
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  }
  MPI_Group_free(&world);
  free_window(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size <= 16, "at most 16 ranks");
  const char* which = argc > 1 ? argv[1] : "both";
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    if (strcmp(which, "both") != 0 && strcmp(which, dynamic ? "dynamic" : "create") != 0) continue;
    run_fence(dynamic);
    run_pscw(dynamic);
  }
  return t_finish("acc_stage");
}
