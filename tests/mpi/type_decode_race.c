/* A derived type in use in one thread while another thread decodes types built on it. To
 * decode a type osprey asks the host for its contents, which hands back the handles of the
 * types it was built on (the program's own, with one reference more), and osprey frees those
 * again: that free must leave the inner type's cached decoding in place, since another thread
 * may be moving data with it at that very moment. Here one thread puts and gets with the inner
 * type over and over, while a second builds a fresh type on it for each operation (an hvector
 * of two inner blocks, its stride new every time, so that no freed type kept for reuse can
 * answer it without decoding) and moves data with that. Both check every element they
 * wrote at the target after each flush; the inner blocks' holes keep their sentinel. */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

/* The inner type: ROWS rows of COLS int64 in rows LD apart; its extent is SPAN elements. */
enum { ROWS = 4, COLS = 3, LD = 5, SPAN = (ROWS - 1) * LD + COLS };
/* The inner thread's slot, then the outer thread's, whose second block moves on each round. */
enum { SLOT_IN = 24, ROUNDS = 1500, SLOT_OUT = 2 * SLOT_IN + ROUNDS, WORDS = SLOT_IN + SLOT_OUT };
_Static_assert((int)SPAN <= (int)SLOT_IN, "an inner block fits its slot");

static const int64_t kSentinel = -7;
static MPI_Win win;
static MPI_Datatype inner;
static int peer;
static atomic_int outer_done;

static int64_t value(int thread, long round, int at) {
  return ((int64_t)t_rank << 40) + ((int64_t)thread << 36) + ((int64_t)round << 12) + at;
}

/* Fills the inner block at 0 of buf (and, for the outer type, the one at `second`) with round's
 * values, puts them with `type` at displacement disp of the peer, flushes, and reads `words`
 * back from there to check every element of those blocks and the words no one writes. */
static void round_trip(int thread, long round, MPI_Datatype type, MPI_Aint disp, int second,
                       int64_t* buf, int64_t* back, int words) {
  const int starts[2] = {0, second};
  const int blocks = second ? 2 : 1;
  for (int b = 0; b < blocks; b++)
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) {
        const int at = starts[b] + r * LD + c;
        buf[at] = value(thread, round, at);
      }
  MPI_OK(MPI_Put(buf, 1, type, peer, disp, 1, type, win));
  MPI_OK(MPI_Win_flush(peer, win));
  MPI_OK(MPI_Get(back, words, MPI_INT64_T, peer, disp, words, MPI_INT64_T, win));
  MPI_OK(MPI_Win_flush(peer, win));
  for (int b = 0; b < blocks; b++)
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) {
        const int at = starts[b] + r * LD + c;
        CHECK(back[at] == value(thread, round, at),
              "thread %d round %ld: element %d at the target is %lld, want %lld", thread, round, at,
              (long long)back[at], (long long)value(thread, round, at));
      }
  /* The first block's holes, and for the inner type the rest of its slot. */
  const int untouched = second ? SPAN : words;
  for (int at = 0; at < untouched; at++)
    if (at >= SPAN || at % LD >= COLS)
      CHECK(back[at] == kSentinel, "thread %d round %ld: word %d at the target is %lld", thread,
            round, at, (long long)back[at]);
}

static void* with_inner(void* arg) {
  (void)arg;
  int64_t buf[SLOT_IN], back[SLOT_IN];
  long round = 0;
  /* At least as many rounds as the other thread, and on until it is done. */
  while (round < ROUNDS || !atomic_load(&outer_done))
    round_trip(0, round++, inner, 0, 0, buf, back, SLOT_IN);
  return NULL;
}

static void* with_outer(void* arg) {
  (void)arg;
  static int64_t buf[SLOT_OUT], back[SLOT_OUT];
  for (long round = 0; round < ROUNDS; round++) {
    const int second = SLOT_IN + (int)round;
    MPI_Datatype outer;
    MPI_OK(MPI_Type_create_hvector(2, 1, (MPI_Aint)second * 8, inner, &outer));
    MPI_OK(MPI_Type_commit(&outer));
    round_trip(1, round, outer, SLOT_IN, second, buf, back, second + SPAN);
    MPI_OK(MPI_Type_free(&outer));
  }
  atomic_store(&outer_done, 1);
  return NULL;
}

int main(int argc, char** argv) {
  t_init_multiple(&argc, &argv);
  CHECK(t_size >= 2, "needs 2 ranks or more");
  peer = (t_rank + 1) % t_size;
  int64_t* base;
  MPI_OK(MPI_Win_allocate(WORDS * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  for (int i = 0; i < WORDS; i++)
    base[i] = kSentinel;
  /* Built on a derived type, the inner type's decoding is held by the handle's cache entry
   * alone (a constructor of predefined types is also remembered by its arguments). */
  MPI_Datatype row;
  MPI_OK(MPI_Type_contiguous(COLS, MPI_INT64_T, &row));
  MPI_OK(MPI_Type_create_hvector(ROWS, 1, LD * 8, row, &inner));
  MPI_OK(MPI_Type_free(&row));
  MPI_OK(MPI_Type_commit(&inner));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(0, win));
  pthread_t a, b;
  CHECK(pthread_create(&a, NULL, with_inner, NULL) == 0, "pthread_create");
  CHECK(pthread_create(&b, NULL, with_outer, NULL) == 0, "pthread_create");
  pthread_join(b, NULL);
  pthread_join(a, NULL);
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Type_free(&inner));
  MPI_OK(MPI_Win_free(&win));
  return t_finish("type_decode_race");
}
