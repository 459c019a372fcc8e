/* MPI_Win_create over memory of every origin a program uses, three rounds over: a large malloc
 * block, whole aligned pages, a small heap block between two neighbours, a static array, a
 * stack array, the first half of a large block, two windows over one buffer (one inside the
 * other, freed in either order), two whose pages overlap in part, a large block attached to a
 * dynamic window (moved at attach: the window over it shares its file), and pages attached
 * next to other attached pages (which stay private while attached, and may move once they are
 * detached or that window is freed).
 * Osprey moves such pages into shared memory in place (node peers then use loads and stores)
 * where that is safe, and back when the window goes.
 * Each case checks that what the program wrote before MPI_Win_create is still there, that
 * puts, accumulates and fetch_and_op of every origin land (fence and lock_all epochs), that
 * the owner's own stores reach the origins' gets, that the memory keeps its data after
 * MPI_Win_free and can grow with realloc, and that neighbouring objects never change. A helper
 * thread keeps incrementing a counter on the small block's page through all of it: a move that
 * lost one of its writes would show in its final count. */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

enum { SLOT = 64 }; /* longs per origin slot; a window of n slots holds n * SLOT longs */

static atomic_int stop_counting;
static long counted;

/* The neighbour object on the small block's page: incremented by the helper thread. */
struct neighbour {
  long before[8];
  volatile long counter;
};
static struct neighbour* near_block;

static void* count_forever(void* arg) {
  (void)arg;
  while (!atomic_load_explicit(&stop_counting, memory_order_relaxed)) {
    near_block->counter = near_block->counter + 1;
    counted++;
  }
  return NULL;
}

static long value(int owner, int origin, int i, int round) {
  return (long)owner * 1000003L + (long)origin * 10007L + i * 13L + round * 7L + 1;
}

/* One window over `mem` (`longs` longs, at least (t_size + 2) * SLOT): its owner fills it,
 * every origin puts a row into its slot, adds into a shared row and takes tickets, under fence
 * and then lock_all; the owner's own stores are read back with gets. `must_share` 1 asks that
 * no node peer be reached by cross-memory attach (the pages could move) and that the pages be
 * private again after MPI_Win_free, 2 the same but that they stay moved (another window holds
 * them), -1 that they never move (they share pages with other objects, or other windows
 * expose them). */
static void exercise(long* mem, size_t longs, int round, int must_share, const char* what) {
  const size_t shared_row = (size_t)t_size * SLOT, tickets = shared_row + SLOT;
  CHECK(longs >= tickets + SLOT, "%s: window too small", what);
  for (size_t i = 0; i < longs; i++)
    mem[i] = value(t_rank, -1, (int)i, round);
  MPI_Win win;
  MPI_OK(MPI_Win_create(mem, (MPI_Aint)(longs * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win));
  for (size_t i = 0; i < longs; i++)
    CHECK(mem[i] == value(t_rank, -1, (int)i, round), "%s: byte %zu changed by MPI_Win_create",
          what, i * sizeof(long));
  char path[MPI_MAX_INFO_VAL + 1];
  t_win_path(win, path);
  const char* share = getenv("OSPREY_SHARE_IN_PLACE");
  const char* transport = getenv("OSPREY_TRANSPORT");
  if (must_share > 0 && !(share && !strcmp(share, "0")) && !(transport && !strcmp(transport, "am")))
    CHECK(!strstr(path, "cma"), "%s: path %s: the pages did not move", what, path);
  if (must_share < 0) CHECK(!t_moved_in_place(mem), "%s: pages moved", what);
  for (size_t i = shared_row; i < longs; i++)
    mem[i] = 0;
  MPI_OK(MPI_Win_fence(0, win));

  long rows[4][SLOT], ones[SLOT]; /* not reused before the fence completes the puts */
  for (int i = 0; i < SLOT; i++)
    ones[i] = 1;
  for (int t = 0; t < t_size; t++) {
    for (int i = 0; i < SLOT; i++)
      rows[t][i] = value(t, t_rank, i, round);
    MPI_OK(MPI_Put(rows[t], SLOT, MPI_LONG, t, (MPI_Aint)t_rank * SLOT, SLOT, MPI_LONG, win));
    MPI_OK(MPI_Accumulate(ones, SLOT, MPI_LONG, t, (MPI_Aint)shared_row, SLOT, MPI_LONG, MPI_SUM,
                          win));
  }
  MPI_OK(MPI_Win_fence(0, win));
  for (int o = 0; o < t_size; o++)
    for (int i = 0; i < SLOT; i++)
      CHECK(mem[(size_t)o * SLOT + i] == value(t_rank, o, i, round),
            "%s: slot of origin %d, element %d: %ld", what, o, i, mem[(size_t)o * SLOT + i]);
  for (int i = 0; i < SLOT; i++)
    CHECK(mem[shared_row + (size_t)i] == t_size, "%s: sum %d: %ld, want %d", what, i,
          mem[shared_row + (size_t)i], t_size);

  /* Passive target: the owner's stores before the barrier, gets after; tickets by fetch_and_op
   * on element 0 of the ticket row, each seen once. */
  mem[tickets + 1] = value(t_rank, t_rank, 99, round);
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_sync(win));
  long got = 0, one = 1, seen[2];
  for (int t = 0; t < t_size; t++) {
    MPI_OK(MPI_Get(&got, 1, MPI_LONG, t, (MPI_Aint)tickets + 1, 1, MPI_LONG, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(got == value(t, t, 99, round), "%s: get from %d: %ld", what, t, got);
    for (int k = 0; k < 2; k++) {
      MPI_OK(MPI_Fetch_and_op(&one, &seen[k], MPI_LONG, t, (MPI_Aint)tickets, MPI_SUM, win));
      MPI_OK(MPI_Win_flush(t, win));
    }
    CHECK(seen[1] > seen[0] && seen[0] >= 0 && seen[1] < 2 * t_size, "%s: tickets %ld %ld at %d",
          what, seen[0], seen[1], t);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* every origin flushed its tickets */
  MPI_OK(MPI_Win_sync(win));
  CHECK(mem[tickets] == 2 * t_size, "%s: %ld tickets taken, want %d", what, mem[tickets],
        2 * t_size);
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Win_free(&win));
  if (must_share == 1) CHECK(!t_moved_in_place(mem), "%s: pages not back after free", what);
  /* After the window: the same data, and the program's stores stay its own. */
  for (int o = 0; o < t_size; o++)
    CHECK(mem[(size_t)o * SLOT + 3] == value(t_rank, o, 3, round), "%s: data lost at free", what);
  CHECK(mem[tickets] == 2 * t_size, "%s: tickets lost at free", what);
}

static long static_array[(4 + 2) * SLOT + 4096 / sizeof(long) + 3];

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
  CHECK(t_size <= 4, "at most 4 ranks");
  const size_t need = (size_t)(t_size + 2) * SLOT;
  /* Blocks from 128 KiB get their own mapping in every round (glibc raises the threshold
   * after a free otherwise). Under sanitizers malloc is theirs: no such blocks. */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const int large_must_share = 0;
#else
  const int large_must_share = 1;
#endif

  /* Small heap block between two neighbours, one of them counted by the helper thread. */
  near_block = calloc(1, sizeof *near_block);
  long* small = malloc(need * sizeof(long));
  long* after = malloc(64 * sizeof(long));
  for (int i = 0; i < 64; i++)
    after[i] = 5 * i + t_rank;
  pthread_t helper;
  CHECK(pthread_create(&helper, NULL, count_forever, NULL) == 0, "no helper thread");

  for (int round = 0; round < 3; round++) {
    /* A large malloc block: its own mapping (moved in place where allowed). */
    const size_t big_longs = 300000 / sizeof(long) + 7;
    long* big = malloc(big_longs * sizeof(long));
    exercise(big, big_longs, round, large_must_share, "large malloc block");
    big = realloc(big, 4 * big_longs * sizeof(long));
    CHECK(big, "realloc failed");
    big[4 * big_longs - 1] = 1;
    CHECK(big[3] == value(t_rank, 0, 3, round), "large block lost its data in realloc");
    free(big);

    /* A large block attached to a dynamic window moves at attach: a window over it shares its
     * file, and the pages stay moved after that window (the dynamic one holds them). */
    const size_t att_longs = 40000;
    long* att = malloc(att_longs * sizeof(long));
    MPI_Win dyn;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    MPI_OK(MPI_Win_attach(dyn, att, (MPI_Aint)(att_longs * sizeof(long))));
    exercise(att, att_longs, round, 2 * large_must_share, "window over attached memory");
    MPI_OK(MPI_Win_detach(dyn, att));
    exercise(att, att_longs, round, large_must_share, "the same block after detach");
    MPI_OK(MPI_Win_free(&dyn));
    /* A dynamic window freed with the block still attached ends the exposure too. */
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    MPI_OK(MPI_Win_attach(dyn, att, (MPI_Aint)(att_longs * sizeof(long))));
    MPI_OK(MPI_Win_free(&dyn));
    exercise(att, att_longs, round, large_must_share, "a block attached when its window went");
    free(att);

    /* Whole aligned pages. */
    long* pages = NULL;
    const size_t page_longs = 4 * 4096 / sizeof(long);
    CHECK(posix_memalign((void**)&pages, 4096, page_longs * sizeof(long)) == 0, "no memory");
    exercise(pages, page_longs, round, 1, "aligned pages");
    free(pages);

    /* Pages attached to a dynamic window right after an attached neighbour stay private: peers
     * may write them by cross-memory attach at any time, so they must not move while attached,
     * and may once they are not. */
    const size_t half_longs = 2 * 4096 / sizeof(long);
    CHECK(posix_memalign((void**)&pages, 4096, 2 * half_longs * sizeof(long)) == 0, "no memory");
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    MPI_OK(MPI_Win_attach(dyn, pages, (MPI_Aint)(half_longs * sizeof(long))));
    MPI_OK(MPI_Win_attach(dyn, pages + half_longs, (MPI_Aint)(half_longs * sizeof(long))));
    exercise(pages + half_longs, half_longs, round, -1, "pages attached next to others");
    MPI_OK(MPI_Win_detach(dyn, pages + half_longs));
    exercise(pages + half_longs, half_longs, round, 1, "the same pages after detach");
    MPI_OK(MPI_Win_free(&dyn));
    free(pages);

    exercise(small, need, round, -1, "small heap block");
    exercise(static_array + 3, need, round, -1, "static array");
    long on_stack[(4 + 2) * SLOT + 1];
    exercise(on_stack + 1, need, round, -1, "stack array");

    /* Part of a large block, short of its last page: the rest of the block shares that page. */
    long* half = malloc(2 * big_longs * sizeof(long));
    exercise(half, big_longs, round, -1, "first half of a large block");
    free(half);

    /* Two windows over one large block, the second inside the first. */
    const size_t two_longs = 40000 + need;
    long* two = malloc(two_longs * sizeof(long));
    for (size_t i = 0; i < two_longs; i++)
      two[i] = (long)i;
    MPI_Win outer;
    MPI_OK(MPI_Win_create(two, (MPI_Aint)(two_longs * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &outer));
    exercise(two + need, need, round, 2 * large_must_share, "window inside another");
    MPI_OK(MPI_Win_fence(0, outer));
    long mark = 1000 + t_rank;
    MPI_OK(MPI_Put(&mark, 1, MPI_LONG, (t_rank + 1) % t_size, (MPI_Aint)(two_longs - 1), 1,
                   MPI_LONG, outer));
    MPI_OK(MPI_Win_fence(0, outer));
    const int left = (t_rank + t_size - 1) % t_size;
    CHECK(two[two_longs - 1] == 1000 + left, "outer window: %ld", two[two_longs - 1]);
    CHECK(two[5] == 5, "outer window lost data");
    MPI_OK(MPI_Win_free(&outer));
    CHECK(two[two_longs - 1] == 1000 + left && two[need + 3] == value(t_rank, 0, 3, round),
          "buffer lost data after both windows");
    CHECK(!t_moved_in_place(two), "pages not back after both windows");

    /* The same, the outer window freed first: the inner one keeps the pages moved and working. */
    MPI_Win inner;
    MPI_OK(MPI_Win_create(two, (MPI_Aint)(two_longs * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &outer));
    MPI_OK(MPI_Win_create(two + need, (MPI_Aint)(need * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &inner));
    MPI_OK(MPI_Win_free(&outer));
    MPI_OK(MPI_Win_fence(0, inner));
    mark = 2000 + t_rank;
    MPI_OK(MPI_Put(&mark, 1, MPI_LONG, (t_rank + 1) % t_size, 7, 1, MPI_LONG, inner));
    MPI_OK(MPI_Win_fence(0, inner));
    CHECK(two[need + 7] == 2000 + left, "inner window after outer freed: %ld", two[need + 7]);
    MPI_OK(MPI_Win_free(&inner));
    CHECK(two[need + 7] == 2000 + left && two[5] == 5, "buffer lost data after both windows");
    CHECK(!t_moved_in_place(two), "pages not back after the inner window");
    free(two);

    /* A window over part of a large block (its pages move only in a process with one thread),
     * then one over the whole block, which overlaps the first one's pages in part. */
    const size_t part_longs = 40000;
    long* part = malloc(part_longs * sizeof(long));
    MPI_Win first;
    MPI_OK(MPI_Win_create(part + 5000, (MPI_Aint)(need * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &first));
    exercise(part, part_longs, round, -1, "window over pages of another in part");
    MPI_OK(MPI_Win_free(&first));
    free(part);
  }

  atomic_store(&stop_counting, 1);
  pthread_join(helper, NULL);
  CHECK(near_block->counter == counted, "neighbour counter %ld, its thread counted %ld",
        near_block->counter, counted);
  for (int i = 0; i < 64; i++)
    CHECK(after[i] == 5 * i + t_rank, "neighbour block changed at %d", i);
  free(after);
  free(small);
  free(near_block);
  return t_finish("create_in_place");
}
