/* Strided target layouts as a Global Arrays style runtime uses them: ROWS rows of COLS int64
 * out of a 2-D array, as a vector, a subarray, an indexed type (rows at uneven offsets), a
 * struct (one member per row) and a vector of vectors, each either built, committed and freed
 * around every operation (freed before the flush, so the operation keeps what it needs) or
 * built once and reused. Under lock_all, every origin puts to its own slot at every target,
 * gets it back, and accumulates (MPI_SUM) into one region shared by all origins while also
 * hitting elements of it with single-element MPI_Fetch_and_op: the element-wise atomicity of
 * accumulates decides the sums. 80 rows of 48 int64 make 30 KiB: past the eager limit, so on
 * the message path the data travels separately, laid out by the strided blocks (the regular
 * layouts as hvectors, the uneven ones as run lists). Every element of
 * every slot, holes included, is checked. */
#include "common.h"
#include "row_types.h"

enum { ROWS = 80, COLS = 48, LD = 64, SLOT = ROWS * LD + 16, ROUNDS = 3, FOPS = 8, NLAYOUTS = 5 };
static const char* const layout_names[NLAYOUTS] = {"vector", "subarray", "indexed", "struct",
                                                   "vector of vectors"};

/* The element (from the slot's start) where row r, column c of the layout lives. */
static int pos(int layout, int r, int c) {
  switch (layout) {
    case 0:
      return r * LD + c;
    case 1:
      return r * LD + 3 + c;
    case 2:
      return r * LD + (r % 3) * 2 + c;
    case 3:
      return r * LD + (r % 2) * 5 + c;
    default:
      return (r / (ROWS / 2)) * ((ROWS / 2) * LD + 1) + (r % (ROWS / 2)) * LD + c;
  }
}

static MPI_Datatype make_type(int layout) {
  static const enum t_rows_kind kinds[NLAYOUTS] = {T_ROWS_VECTOR, T_ROWS_SUBARRAY, T_ROWS_INDEXED,
                                                   T_ROWS_STRUCT, T_ROWS_VECTOR_OF_VECTORS};
  int start[ROWS];
  for (int r = 0; r < ROWS; r++)
    start[r] = pos(layout, r, 0);
  return t_row_type(kinds[layout], ROWS, COLS, LD, start);
}

/* What origin o puts at row r, column c of its slot at target t in pass p. */
static int64_t put_value(int o, int t, int r, int c, int p) {
  return ((int64_t)(o + 1) << 40) + ((int64_t)(t + 1) << 32) + (int64_t)p * 100000 + r * COLS + c;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size <= 4, "at most 4 ranks");
  const MPI_Aint bytes = (MPI_Aint)(t_size + 1) * SLOT * 8; /* a slot per origin + shared */
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, bytes, 1, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    for (int pass = 0; pass < 2 * NLAYOUTS; pass++) {
      const int layout = pass % NLAYOUTS, fresh = pass < NLAYOUTS;
      const char* how = fresh ? "fresh" : "reused";
      for (int i = 0; i < (t_size + 1) * SLOT; i++)
        mine[i] = -1;
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      MPI_Datatype reused = fresh ? MPI_DATATYPE_NULL : make_type(layout);
      /* Origin buffers stay untouched until the flush that completes their operations. */
      static int64_t src[4][ROWS * COLS], acc[ROWS * COLS], back[ROWS * COLS], old[ROUNDS * FOPS];
      const int64_t one = 1000 * (t_rank + 1);
      for (int i = 0; i < ROWS * COLS; i++)
        acc[i] = (int64_t)(t_rank + 1) * (i + 1);
      MPI_OK(MPI_Win_lock_all(0, w.win));
      /* Puts into this origin's slot at every target, and accumulates into the shared region
       * with single-element fetch_and_ops among them, no flush in between. */
      for (int k = 0; k < t_size; k++) {
        const int t = (t_rank + k) % t_size;
        for (int r = 0; r < ROWS; r++)
          for (int c = 0; c < COLS; c++)
            src[t][r * COLS + c] = put_value(t_rank, t, r, c, pass);
        const MPI_Aint slot = t_disp(&w, t, (MPI_Aint)t_rank * SLOT * 8, 1);
        const MPI_Aint shared = t_disp(&w, t, (MPI_Aint)t_size * SLOT * 8, 1);
        MPI_Datatype ty = fresh ? make_type(layout) : reused;
        MPI_OK(MPI_Put(src[t], ROWS * COLS, MPI_INT64_T, t, slot, 1, ty, w.win));
        if (fresh) MPI_OK(MPI_Type_free(&ty));
        for (int round = 0; round < ROUNDS; round++) {
          ty = fresh ? make_type(layout) : reused;
          MPI_OK(MPI_Accumulate(acc, ROWS * COLS, MPI_INT64_T, t, shared, 1, ty, MPI_SUM, w.win));
          if (fresh) MPI_OK(MPI_Type_free(&ty));
          for (int q = 0; q < FOPS; q++) {
            const int r = (q * 5 + round) % ROWS, c = (q * 7) % COLS;
            MPI_OK(MPI_Fetch_and_op(&one, &old[round * FOPS + q], MPI_INT64_T, t,
                                    shared + pos(layout, r, c) * 8, MPI_SUM, w.win));
          }
          /* Once per round the data reaches the target, so that accumulates of other origins
           * meet these in flight, not only after them. */
          MPI_OK(MPI_Win_flush(t, w.win));
        }
      }
      MPI_OK(MPI_Win_flush_all(w.win));
      /* Gets every slot this origin wrote back through the same layout. */
      for (int t = 0; t < t_size; t++) {
        const MPI_Aint slot = t_disp(&w, t, (MPI_Aint)t_rank * SLOT * 8, 1);
        memset(back, 0, sizeof back);
        MPI_Datatype ty = fresh ? make_type(layout) : reused;
        MPI_OK(MPI_Get(back, ROWS * COLS, MPI_INT64_T, t, slot, 1, ty, w.win));
        if (fresh) MPI_OK(MPI_Type_free(&ty));
        MPI_OK(MPI_Win_flush(t, w.win));
        for (int r = 0; r < ROWS; r++)
          for (int c = 0; c < COLS; c++)
            CHECK(back[r * COLS + c] == put_value(t_rank, t, r, c, pass),
                  "%s %s %s: get from %d, row %d col %d: %lld", t_flavor_names[f],
                  layout_names[layout], how, t, r, c, (long long)back[r * COLS + c]);
      }
      MPI_OK(MPI_Win_unlock_all(w.win));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      /* Every slot: the data where the layout puts it, -1 in the holes. */
      char covered[SLOT];
      memset(covered, 0, sizeof covered);
      for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
          covered[pos(layout, r, c)] = 1;
      for (int o = 0; o < t_size; o++) {
        const int64_t* s = mine + (size_t)o * SLOT;
        for (int i = 0; i < SLOT; i++)
          if (!covered[i])
            CHECK(s[i] == -1, "%s %s %s: hole %d of origin %d's slot is %lld", t_flavor_names[f],
                  layout_names[layout], how, i, o, (long long)s[i]);
        for (int r = 0; r < ROWS; r++)
          for (int c = 0; c < COLS; c++)
            CHECK(s[pos(layout, r, c)] == put_value(o, t_rank, r, c, pass),
                  "%s %s %s: origin %d's row %d col %d is %lld", t_flavor_names[f],
                  layout_names[layout], how, o, r, c, (long long)s[pos(layout, r, c)]);
      }
      /* The shared region: every origin's accumulates and fetch_and_ops, each counted once. */
      int64_t want[SLOT];
      for (int i = 0; i < SLOT; i++)
        want[i] = covered[i] ? 0 : -1;
      for (int o = 0; o < t_size; o++)
        for (int round = 0; round < ROUNDS; round++) {
          for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++)
              want[pos(layout, r, c)] += (int64_t)(o + 1) * (r * COLS + c + 1);
          for (int q = 0; q < FOPS; q++)
            want[pos(layout, (q * 5 + round) % ROWS, (q * 7) % COLS)] += 1000 * (o + 1);
        }
      /* The region started at -1: the first accumulate added to it. */
      for (int i = 0; i < SLOT; i++)
        if (covered[i]) want[i] -= 1;
      const int64_t* sh = mine + (size_t)t_size * SLOT;
      for (int i = 0; i < SLOT; i++)
        CHECK(sh[i] == want[i], "%s %s %s: shared element %d is %lld, want %lld", t_flavor_names[f],
              layout_names[layout], how, i, (long long)sh[i], (long long)want[i]);
      if (!fresh) MPI_OK(MPI_Type_free(&reused));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    t_win_free(&w);
  }
  return t_finish("strided_types");
}
