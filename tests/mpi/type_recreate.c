/* A datatype freed and a new one created at once usually gets the same handle value back from
 * the host. osprey decodes a datatype once per handle: here every round builds a type, moves
 * data with it, frees it, and builds one of another layout (a vector, an indexed type with
 * uneven rows, a subarray, a struct) that may reuse the handle: a put with one layout, then a
 * get with the next, which reads the put's rows where the layouts meet and the untouched holes
 * elsewhere, toward every rank and in every window flavor. Every element read back and every
 * element of the target slots, holes included, is checked.
 * Types built the same way share one decoding (keyed by their constructor and its arguments):
 * the rounds repeat their constructors. nested() rebuilds, round after round, one outer
 * constructor with equal numbers over an inner type whose layout changes: a constructor with a
 * derived argument is never keyed, and the data shows it. */
#include "common.h"
#include "row_types.h"

enum { ROWS = 6, COLS = 10, LD = 16, SLOT = ROWS * LD + 8, NLAYOUTS = 4, ROUNDS = 24 };

/* The element (from the slot's start) where row r, column c of the layout lives. */
static int pos(int layout, int r, int c) {
  switch (layout) {
    case 0:
      return r * LD + c;
    case 1:
      return r * LD + (r % 3) * 2 + c;
    case 2:
      return r * LD + 5 + c;
    default:
      return r * LD + (r % 2) * 3 + 1 + c;
  }
}

static MPI_Datatype make_type(int layout) {
  static const enum t_rows_kind kinds[NLAYOUTS] = {T_ROWS_VECTOR, T_ROWS_INDEXED, T_ROWS_SUBARRAY,
                                                   T_ROWS_STRUCT};
  int start[ROWS];
  for (int r = 0; r < ROWS; r++)
    start[r] = pos(layout, r, 0);
  return t_row_type(kinds[layout], ROWS, COLS, LD, start);
}

static int64_t value(int origin, int round, int r, int c) {
  return ((int64_t)(origin + 1) << 40) + (int64_t)round * 10000 + r * COLS + c;
}

/* Rows of a vector inside an hvector: the inner vector's stride changes from round to round,
 * the outer constructor's arguments (its count, stride and the inner handle) mostly do not. */
enum { NEST_ROWS = 3, NEST_COLS = 2, NEST_STRIDE = 40, NEST_SPAN = 2 * NEST_STRIDE };

static int nested_pos(int round, int h, int r, int c) {
  return h * NEST_STRIDE + r * (4 + round % 2) + c;
}

static void nested(struct t_win* w, const char* flavor) {
  enum { N = 2 * NEST_ROWS * NEST_COLS };
  for (int round = 0; round < 8; round++) {
    MPI_OK(MPI_Win_lock_all(0, w->win));
    for (int t = 0; t < t_size; t++) {
      const MPI_Aint disp = t_disp(w, t, (MPI_Aint)t_rank * SLOT * 8, 8);
      int64_t src[N], back[NEST_SPAN], holes[NEST_SPAN];
      for (int i = 0; i < N; i++)
        src[i] = value(t_rank, round, 0, i);
      for (int i = 0; i < NEST_SPAN; i++)
        holes[i] = -1;
      MPI_OK(MPI_Put(holes, NEST_SPAN, MPI_INT64_T, t, disp, NEST_SPAN, MPI_INT64_T, w->win));
      MPI_OK(MPI_Win_flush(t, w->win));
      MPI_Datatype inner, outer;
      MPI_OK(MPI_Type_vector(NEST_ROWS, NEST_COLS, 4 + round % 2, MPI_INT64_T, &inner));
      MPI_OK(MPI_Type_create_hvector(2, 1, NEST_STRIDE * 8, inner, &outer));
      MPI_OK(MPI_Type_commit(&outer));
      MPI_OK(MPI_Type_free(&inner));
      MPI_OK(MPI_Put(src, N, MPI_INT64_T, t, disp, 1, outer, w->win));
      MPI_OK(MPI_Type_free(&outer));
      MPI_OK(MPI_Win_flush(t, w->win));
      MPI_OK(MPI_Get(back, NEST_SPAN, MPI_INT64_T, t, disp, NEST_SPAN, MPI_INT64_T, w->win));
      MPI_OK(MPI_Win_flush(t, w->win));
      for (int i = 0; i < NEST_SPAN; i++) {
        int64_t want = -1;
        for (int h = 0; h < 2; h++)
          for (int r = 0; r < NEST_ROWS; r++)
            for (int c = 0; c < NEST_COLS; c++)
              if (nested_pos(round, h, r, c) == i)
                want = value(t_rank, round, 0, (h * NEST_ROWS + r) * NEST_COLS + c);
        CHECK(back[i] == want, "%s nested round %d target %d: element %d is %lld, want %lld",
              flavor, round, t, i, (long long)back[i], (long long)want);
      }
    }
    MPI_OK(MPI_Win_unlock_all(w->win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size <= 4, "at most 4 ranks");
  const MPI_Aint bytes = (MPI_Aint)t_size * SLOT * 8; /* a slot per origin */
  int reused = 0;
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, bytes, 8, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    for (int round = 0; round < ROUNDS; round++) {
      const int layout = round % NLAYOUTS;
      for (int i = 0; i < t_size * SLOT; i++)
        mine[i] = -1;
      MPI_Barrier(MPI_COMM_WORLD);
      int64_t src[ROWS * COLS], back[ROWS * COLS];
      for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
          src[r * COLS + c] = value(t_rank, round, r, c);
      MPI_OK(MPI_Win_lock_all(0, w.win));
      MPI_Datatype last = MPI_DATATYPE_NULL;
      for (int t = 0; t < t_size; t++) {
        const MPI_Aint disp = t_disp(&w, t, (MPI_Aint)t_rank * SLOT * 8, 8);
        /* The put's type: this round's layout, built fresh for this target and freed before
         * the flush; the get's: built right after, mostly with the freed handle's value. */
        MPI_Datatype ty = make_type(layout);
        if (ty == last) reused = 1;
        MPI_OK(MPI_Put(src, ROWS * COLS, MPI_INT64_T, t, disp, 1, ty, w.win));
        last = ty;
        MPI_OK(MPI_Type_free(&ty));
        MPI_OK(MPI_Win_flush(t, w.win));
        const int get_layout = (layout + 1) % NLAYOUTS;
        MPI_Datatype ty2 = make_type(get_layout);
        if (ty2 == last) reused = 1;
        memset(back, 0, sizeof back);
        MPI_OK(MPI_Get(back, ROWS * COLS, MPI_INT64_T, t, disp, 1, ty2, w.win));
        last = ty2;
        MPI_OK(MPI_Type_free(&ty2));
        MPI_OK(MPI_Win_flush(t, w.win));
        for (int i = 0; i < ROWS * COLS; i++) {
          const int at = pos(get_layout, i / COLS, i % COLS);
          int64_t want = -1;
          for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++)
              if (pos(layout, r, c) == at) want = value(t_rank, round, r, c);
          CHECK(back[i] == want, "%s round %d target %d: got back %lld at %d, want %lld",
                t_flavor_names[f], round, t, (long long)back[i], i, (long long)want);
        }
        /* A type of yet another layout, likely on the same handle, then freed unused: the
         * next round's types must not take its decode either. */
        MPI_Datatype other = make_type((layout + 2) % NLAYOUTS);
        MPI_OK(MPI_Type_free(&other));
      }
      MPI_OK(MPI_Win_unlock_all(w.win));
      MPI_Barrier(MPI_COMM_WORLD);
      for (int o = 0; o < t_size; o++) {
        const int64_t* slot = mine + o * SLOT;
        for (int i = 0; i < SLOT; i++) {
          int64_t want = -1;
          for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++)
              if (pos(layout, r, c) == i) want = value(o, round, r, c);
          CHECK(slot[i] == want, "%s round %d origin %d: element %d is %lld, want %lld",
                t_flavor_names[f], round, o, i, (long long)slot[i], (long long)want);
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    nested(&w, t_flavor_names[f]);
    t_win_free(&w);
  }
  if (t_rank == 0 && !reused) printf("type_recreate: note: the host never reused a handle\n");
  if (t_rank == 0) printf("type_recreate: OK\n");
  MPI_Finalize();
  return 0;
}
