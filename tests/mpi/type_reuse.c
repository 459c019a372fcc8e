/* A datatype the program frees may be kept, and handed back by the next constructor called
 * with the same arguments. Whatever the program can see must be what a type built anew shows:
 * every round here builds a type (a vector, a subarray or an indexed type, in two shapes that
 * differ in one argument), moves data with it and frees it, and checks every element of the
 * target slot (the holes keep their sentinel) and of a get with a type built alike. Also:
 * many handles of one shape alive at once are all distinct and each moves its own data; a
 * type freed while its operation is pending and built again at once; a type named before it
 * was freed, whose successor has no name; handles MPI_Type_get_contents returned; a
 * large-count constructor's type; a type that lives on inside another one; threads
 * that build and free the same shapes at once; and, last, a type with an attribute, whose
 * delete callback runs at the free and whose successor carries none. */
#include <pthread.h>

#include "common.h"

enum { ROWS = 4, COLS = 6, LD = 10, SLOT = ROWS * (LD + 2) + 8, ROUNDS = 12, MANY = 12 };
enum { THREADS = 2, NSLOTS = 2 + THREADS };

static const int64_t kSentinel = -7;

/* Where row r, column c of shape (kind, v) lives in a slot. */
static int pos(int kind, int v, int r, int c) {
  switch (kind) {
    case 0:
      return r * (LD + v) + c;
    case 1:
      return r * (LD + v) + v + c;
    default:
      return r * LD + r % 3 + v + c;
  }
}

static MPI_Datatype make(int kind, int v) {
  MPI_Datatype t;
  if (kind == 0) {
    MPI_OK(MPI_Type_vector(ROWS, COLS, LD + v, MPI_INT64_T, &t));
  } else if (kind == 1) {
    int sizes[2] = {ROWS, LD + v}, subs[2] = {ROWS, COLS}, starts[2] = {0, v};
    MPI_OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT64_T, &t));
  } else {
    int lens[ROWS], displs[ROWS];
    for (int r = 0; r < ROWS; r++) {
      lens[r] = COLS;
      displs[r] = pos(2, v, r, 0);
    }
    MPI_OK(MPI_Type_indexed(ROWS, lens, displs, MPI_INT64_T, &t));
  }
  MPI_OK(MPI_Type_commit(&t));
  return t;
}

/* The constructor and arguments the host reports for t are those of shape (kind, v). */
static void check_contents(MPI_Datatype t, int kind, int v) {
  int ni, na, nd, comb;
  MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  int ints[16];
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  CHECK(ni <= 16 && na <= 1 && nd == 1, "envelope %d %d %d", ni, na, nd);
  MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
  CHECK(types[0] == MPI_INT64_T, "shape %d/%d: old type not MPI_INT64_T", kind, v);
  if (kind == 0)
    CHECK(comb == MPI_COMBINER_VECTOR && ints[0] == ROWS && ints[1] == COLS && ints[2] == LD + v,
          "shape 0/%d: combiner %d ints %d %d %d", v, comb, ints[0], ints[1], ints[2]);
  else if (kind == 1)
    CHECK(comb == MPI_COMBINER_SUBARRAY && ints[0] == 2 && ints[2] == LD + v && ints[6] == v,
          "shape 1/%d: combiner %d ints %d %d %d", v, comb, ints[0], ints[2], ints[6]);
  else
    CHECK(comb == MPI_COMBINER_INDEXED && ints[0] == ROWS && ints[1 + ROWS + 1] == pos(2, v, 1, 0),
          "shape 2/%d: combiner %d", v, comb);
  MPI_Count size;
  MPI_OK(MPI_Type_size_x(t, &size));
  CHECK(size == ROWS * COLS * 8, "shape %d/%d: size %lld", kind, v, (long long)size);
}

static int64_t value(int origin, int tag, int i) {
  return ((int64_t)origin << 40) + ((int64_t)tag << 16) + i;
}

static MPI_Win win;
static int target_of(void) {
  return (t_rank + 1) % t_size;
}

/* Slot `slot` of this origin at its target: cleared, written with type t of shape (kind, v),
 * read back whole and element by element with a type built alike, every element checked. */
static void round_trip(MPI_Datatype t, int kind, int v, int slot, int tag) {
  const int target = target_of();
  const MPI_Aint disp = (MPI_Aint)(t_rank * NSLOTS + slot) * SLOT;
  int64_t clear[SLOT], src[ROWS * COLS], whole[SLOT], rows[ROWS * COLS];
  for (int i = 0; i < SLOT; i++)
    clear[i] = kSentinel;
  for (int i = 0; i < ROWS * COLS; i++)
    src[i] = value(t_rank, tag, i);
  MPI_OK(MPI_Put(clear, SLOT, MPI_INT64_T, target, disp, SLOT, MPI_INT64_T, win));
  MPI_OK(MPI_Win_flush(target, win));
  MPI_OK(MPI_Put(src, ROWS * COLS, MPI_INT64_T, target, disp, 1, t, win));
  MPI_OK(MPI_Win_flush(target, win));
  MPI_OK(MPI_Get(whole, SLOT, MPI_INT64_T, target, disp, SLOT, MPI_INT64_T, win));
  MPI_OK(MPI_Win_flush(target, win));
  char hit[SLOT] = {0};
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) {
      const int p = pos(kind, v, r, c);
      hit[p] = 1;
      CHECK(whole[p] == value(t_rank, tag, r * COLS + c), "shape %d/%d tag %d: element %d", kind, v,
            tag, p);
    }
  for (int i = 0; i < SLOT; i++)
    CHECK(hit[i] || whole[i] == kSentinel, "shape %d/%d tag %d: hole %d written", kind, v, tag, i);
  MPI_Datatype again = make(kind, v);
  MPI_OK(MPI_Get(rows, ROWS * COLS, MPI_INT64_T, target, disp, 1, again, win));
  MPI_OK(MPI_Win_flush(target, win));
  MPI_OK(MPI_Type_free(&again));
  for (int i = 0; i < ROWS * COLS; i++)
    CHECK(rows[i] == src[i], "shape %d/%d tag %d: get element %d", kind, v, tag, i);
}

static void rounds(void) {
  for (int round = 0; round < ROUNDS; round++)
    for (int kind = 0; kind < 3; kind++) {
      const int v = (round / 2 + kind) % 2;
      MPI_Datatype t = make(kind, v);
      check_contents(t, kind, v);
      round_trip(t, kind, v, 0, round * 3 + kind);
      MPI_OK(MPI_Type_free(&t));
      CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle");
    }
}

/* More handles of one shape than the pool keeps, alive at once. */
static void many_alive(void) {
  for (int pass = 0; pass < 3; pass++) {
    MPI_Datatype t[MANY];
    for (int i = 0; i < MANY; i++) {
      t[i] = make(pass % 3, 1);
      for (int j = 0; j < i; j++)
        CHECK(t[i] != t[j], "pass %d: handles %d and %d are the same", pass, j, i);
    }
    for (int i = 0; i < MANY; i++) {
      check_contents(t[i], pass % 3, 1);
      round_trip(t[i], pass % 3, 1, 1, 100 + pass * MANY + i);
    }
    for (int i = 0; i < MANY; i++)
      MPI_OK(MPI_Type_free(&t[i]));
  }
}

/* A type freed while its put is pending, and one built alike at once for a second put. */
static void freed_while_pending(void) {
  const int target = target_of();
  int64_t a[ROWS * COLS], b[ROWS * COLS], back[SLOT];
  for (int i = 0; i < ROWS * COLS; i++) {
    a[i] = value(t_rank, 200, i);
    b[i] = value(t_rank, 201, i);
  }
  const MPI_Aint disp0 = (MPI_Aint)(t_rank * NSLOTS) * SLOT;
  const MPI_Aint disp1 = disp0 + SLOT;
  MPI_Datatype t = make(0, 0);
  MPI_Request req[2];
  MPI_OK(MPI_Rput(a, ROWS * COLS, MPI_INT64_T, target, disp0, 1, t, win, &req[0]));
  MPI_OK(MPI_Type_free(&t));
  MPI_Datatype u = make(0, 0);
  MPI_OK(MPI_Rput(b, ROWS * COLS, MPI_INT64_T, target, disp1, 1, u, win, &req[1]));
  MPI_OK(MPI_Type_free(&u));
  MPI_Status st[2];
  MPI_OK(MPI_Waitall(2, req, st));
  MPI_OK(MPI_Win_flush(target, win));
  for (int s = 0; s < 2; s++) {
    MPI_OK(MPI_Get(back, SLOT, MPI_INT64_T, target, disp0 + s * SLOT, SLOT, MPI_INT64_T, win));
    MPI_OK(MPI_Win_flush(target, win));
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++)
        CHECK(back[pos(0, 0, r, c)] == value(t_rank, 200 + s, r * COLS + c),
              "pending put %d: row %d col %d", s, r, c);
  }
}

/* No type built after a named one was freed has a name (some kept types are built alike),
 * also when another type built on it was decoded and freed first (osprey's decoding frees
 * the handle MPICH's MPI_Type_get_contents returns for it, the named type's own). */
static void named(void) {
  MPI_Datatype t = make(1, 0), outer;
  MPI_OK(MPI_Type_set_name(t, "osprey-named"));
  round_trip(t, 1, 0, 0, 300);
  MPI_Aint lb, extent;
  MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
  MPI_OK(MPI_Type_create_resized(t, lb, extent, &outer));
  MPI_OK(MPI_Type_commit(&outer));
  round_trip(outer, 1, 0, 0, 301);
  round_trip(t, 1, 0, 0, 301);
  MPI_OK(MPI_Type_free(&outer));
  MPI_OK(MPI_Type_free(&t));
  MPI_Datatype u[MANY];
  for (int i = 0; i < MANY; i++) {
    u[i] = make(1, 0);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Type_get_name(u[i], name, &len));
    CHECK(len == 0, "a type built anew is named \"%s\"", name);
    round_trip(u[i], 1, 0, 0, 302 + i);
  }
  for (int i = 0; i < MANY; i++)
    MPI_OK(MPI_Type_free(&u[i]));
}

/* MPICH's MPI_Type_get_contents returns the handle of a derived argument itself, with one
 * more reference: freeing it is not the program's last free of that type, and no constructor
 * may hand out that handle while the program holds it. Also when the type was freed (and
 * kept) before the query reached it inside another type. */
static void contents(void) {
  for (int freed_first = 0; freed_first < 2; freed_first++) {
    MPI_Datatype t = make(0, freed_first), outer, inner;
    round_trip(t, 0, freed_first, 0, 330 + freed_first);
    MPI_OK(MPI_Type_contiguous(2, t, &outer));
    if (freed_first) MPI_OK(MPI_Type_free(&t));
    int ni, na, nd, comb, ints[1];
    MPI_Aint aints[1];
    MPI_OK(MPI_Type_get_envelope(outer, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && nd == 1, "contiguous envelope");
    MPI_OK(MPI_Type_get_contents(outer, 1, 0, 1, ints, aints, &inner));
    MPI_OK(MPI_Type_free(&inner));
    MPI_OK(MPI_Type_get_contents(outer, 1, 0, 1, ints, aints, &inner));
    MPI_Datatype again[MANY];
    for (int i = 0; i < MANY; i++) {
      again[i] = make(0, freed_first);
      CHECK(again[i] != inner && (freed_first || again[i] != t),
            "a constructor handed out a handle the program holds");
    }
    for (int i = 0; i < MANY; i++) {
      check_contents(again[i], 0, freed_first);
      round_trip(again[i], 0, freed_first, 0, 332 + freed_first);
    }
    check_contents(inner, 0, freed_first);
    round_trip(inner, 0, freed_first, 1, 334 + freed_first);
    MPI_OK(MPI_Type_free(&inner));
    for (int i = 0; i < MANY; i++)
      MPI_OK(MPI_Type_free(&again[i]));
    if (!freed_first) MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&outer));
  }
}

#if MPI_VERSION >= 4
/* A type of a large-count constructor answers MPI_Type_get_envelope_c only: one freed must
 * not come back from the plain constructor with equal numbers. */
static void large_count(void) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_vector_c(ROWS, COLS, LD, MPI_INT64_T, &t));
  MPI_OK(MPI_Type_commit(&t));
  round_trip(t, 0, 0, 0, 340);
  MPI_OK(MPI_Type_free(&t));
  MPI_Datatype u[MANY];
  for (int i = 0; i < MANY; i++) {
    u[i] = make(0, 0);
    check_contents(u[i], 0, 0);
  }
  for (int i = 0; i < MANY; i++)
    MPI_OK(MPI_Type_free(&u[i]));
}
#endif

/* A type freed while another built from it lives on, and one built alike meanwhile. */
static void inner(void) {
  MPI_Datatype v = make(2, 1), outer;
  round_trip(v, 2, 1, 0, 400);
  MPI_Aint lb, extent;
  MPI_OK(MPI_Type_get_extent(v, &lb, &extent));
  MPI_OK(MPI_Type_create_resized(v, lb, extent, &outer));
  MPI_OK(MPI_Type_commit(&outer));
  MPI_OK(MPI_Type_free(&v));
  MPI_Datatype again = make(2, 1);
  round_trip(outer, 2, 1, 0, 401);
  round_trip(again, 2, 1, 1, 402);
  MPI_OK(MPI_Type_free(&outer));
  round_trip(again, 2, 1, 0, 403);
  MPI_OK(MPI_Type_free(&again));
}

struct worker {
  int id;
};

static void* threaded_rounds(void* arg) {
  const int id = ((struct worker*)arg)->id;
  for (int round = 0; round < ROUNDS; round++)
    for (int kind = 0; kind < 3; kind++) {
      const int v = round % 2;
      MPI_Datatype t = make(kind, v);
      round_trip(t, kind, v, 2 + id, 500 + (id * ROUNDS + round) * 3 + kind);
      MPI_OK(MPI_Type_free(&t));
    }
  return NULL;
}

static void threads(void) {
  pthread_t th[THREADS];
  struct worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i].id = i;
    CHECK(pthread_create(&th[i], NULL, threaded_rounds, &w[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
}

static int deleted;
static int count_delete(MPI_Datatype t, int keyval, void* value, void* extra) {
  (void)t, (void)keyval, (void)value, (void)extra;
  deleted++;
  return MPI_SUCCESS;
}

/* A type with an attribute: its delete callback runs at the free; a type built alike after it
 * carries no attribute. */
static void attribute(void) {
  int keyval;
  MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &keyval, NULL));
  MPI_Datatype t = make(0, 1);
  round_trip(t, 0, 1, 0, 600);
  static int payload = 42;
  MPI_OK(MPI_Type_set_attr(t, keyval, &payload));
  MPI_OK(MPI_Type_free(&t));
  CHECK(deleted == 1, "the delete callback ran %d times at the free", deleted);
  MPI_Datatype u = make(0, 1);
  void* got;
  int flag = 1;
  MPI_OK(MPI_Type_get_attr(u, keyval, &got, &flag));
  CHECK(!flag, "a type built anew carries an attribute");
  round_trip(u, 0, 1, 0, 601);
  MPI_OK(MPI_Type_free(&u));
  MPI_OK(MPI_Type_free_keyval(&keyval));
}

int main(int argc, char** argv) {
  t_init_multiple(&argc, &argv);
  int64_t* base;
  MPI_OK(MPI_Win_allocate((MPI_Aint)t_size * NSLOTS * SLOT * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD,
                          &base, &win));
  MPI_OK(MPI_Win_lock_all(0, win));
  rounds();
  many_alive();
  freed_while_pending();
  named();
  contents();
#if MPI_VERSION >= 4
  large_count();
#endif
  inner();
  threads();
  rounds();
  attribute();
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Win_free(&win));
  return t_finish("type_reuse");
}
