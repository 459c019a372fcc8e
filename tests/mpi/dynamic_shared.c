/* Dynamic windows over memory that osprey moves into shared memory at MPI_Win_attach (whole
 * aligned pages, a large malloc block), over MPI_Alloc_mem memory (shared already), over a
 * small heap block (stays private: cross-memory attach), and over two adjacent attached halves
 * of one page-aligned buffer (the first moves, the second touches it and stays private), over
 * many rounds. The aligned pages are attached anew at every round (often at the same address),
 * so peers' mappings of detached regions pile up and are dropped.
 * Every round, under lock_all, every origin (the owner too) puts its row into its slot of every
 * region at every target, adds a row of ones into a shared row with one multi-element
 * accumulate while the other origins fetch_and_op the same elements one by one, and takes a
 * ticket by compare_and_swap (exactly one wins); puts and accumulates span the seam of the two
 * halves, a two-element accumulate there races fetch_and_op on its element in the moved half,
 * and under fence accumulates there keep their order against ones inside the moved half. The
 * owner checks every element after a barrier, and origins get back its own stores. After
 * detach the moved pages must be private again with their data; while attached they must be
 * shared when node peers are reached through the node (unless OSPREY_SHARE_IN_PLACE=0). */
#include <malloc.h>

#include "common.h"

enum { ROUNDS = 80, SLOT = 16, KINDS = 5 };
enum { PAGES, BIG, ALLOC_MEM, SMALL, SEAM }; /* SEAM: the two halves, addressed as one */

static long value(int owner, int origin, int i, int round) {
  return (long)owner * 1000003L + (long)origin * 10007L + i * 13L + round * 7L + 1;
}

/* Whether some node peer is reached through the node (the window's paths say). */
static int node_peers(MPI_Win win) {
  char path[MPI_MAX_INFO_VAL + 1];
  return t_win_path(win, path) && strstr(path, "cma") != NULL;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const char* share = getenv("OSPREY_SHARE_IN_PLACE");
  const int may_move = !(share && !strcmp(share, "0"));
  /* Per region: a slot per origin, a shared row, a ticket. */
  const size_t longs = (size_t)(t_size + 1) * SLOT + 1, shared_row = (size_t)t_size * SLOT;
  const size_t page = 4096, page_longs = 2 * page / sizeof(long);
  CHECK(longs <= page_longs, "region too small");

  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  const int through_node = node_peers(win);
  long* big = malloc(40000 * sizeof(long)); /* its own mapping: movable */
  long* small = malloc(longs * sizeof(long));
  long* alloc_mem = NULL;
  MPI_OK(MPI_Alloc_mem((MPI_Aint)(longs * sizeof(long)), MPI_INFO_NULL, &alloc_mem));
  long *halves = NULL, *pages = NULL;
  CHECK(posix_memalign((void**)&halves, page, 2 * page_longs * sizeof(long)) == 0, "no memory");
  /* The seam region: the last `longs` of the first half and the start of the second. */
  long* seam = halves + page_longs - longs / 2;
  MPI_OK(MPI_Win_attach(win, halves, (MPI_Aint)(page_longs * sizeof(long))));
  MPI_OK(MPI_Win_attach(win, halves + page_longs, (MPI_Aint)(page_longs * sizeof(long))));
  MPI_OK(MPI_Win_attach(win, big, (MPI_Aint)(longs * sizeof(long))));
  MPI_OK(MPI_Win_attach(win, small, (MPI_Aint)(longs * sizeof(long))));
  MPI_OK(MPI_Win_attach(win, alloc_mem, (MPI_Aint)(longs * sizeof(long))));
  if (through_node && may_move) {
    CHECK(t_moved_in_place(halves), "first half: pages did not move at attach");
    CHECK(!t_moved_in_place(halves + page_longs), "second half moved, next to an attached region");
  }

  MPI_Aint* addr = malloc(sizeof(MPI_Aint) * (size_t)(t_size * KINDS));
  long rows[4][SLOT], ones[SLOT], one = 1, old = 0;
  int won[4 * KINDS];
  for (int i = 0; i < SLOT; i++)
    ones[i] = 1;
  for (int round = 0; round < ROUNDS; round++) {
    CHECK(posix_memalign((void**)&pages, page, page_longs * sizeof(long)) == 0, "no memory");
    long* mem[KINDS] = {pages, big, alloc_mem, small, seam};
    for (int k = 0; k < KINDS; k++)
      for (size_t i = 0; i < longs; i++)
        mem[k][i] = value(t_rank, -1, (int)i, round);
    for (size_t i = shared_row; i < longs; i++)
      for (int k = 0; k < KINDS; k++)
        mem[k][i] = 0;
    MPI_OK(MPI_Win_attach(win, pages, (MPI_Aint)(page_longs * sizeof(long))));
    if (through_node && may_move) CHECK(t_moved_in_place(pages), "round %d: pages stayed", round);
    CHECK(pages[3] == value(t_rank, -1, 3, round), "round %d: attach changed data", round);
    MPI_Aint mine[KINDS];
    for (int k = 0; k < KINDS; k++)
      MPI_Get_address(mem[k], &mine[k]);
    MPI_Allgather(mine, KINDS, MPI_AINT, addr, KINDS, MPI_AINT, MPI_COMM_WORLD);

    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < t_size; t++) {
      for (int i = 0; i < SLOT; i++)
        rows[t][i] = value(t, t_rank, i, round);
      for (int k = 0; k < KINDS; k++) {
        const MPI_Aint at = addr[t * KINDS + k];
        MPI_OK(MPI_Put(rows[t], SLOT, MPI_LONG, t, at + (MPI_Aint)(t_rank * SLOT * sizeof(long)),
                       SLOT, MPI_LONG, win));
        const MPI_Aint row = at + (MPI_Aint)(shared_row * sizeof(long));
        /* One origin adds a row at once; the others add element by element. */
        if (t_rank == round % t_size) {
          MPI_OK(MPI_Accumulate(ones, SLOT, MPI_LONG, t, row, SLOT, MPI_LONG, MPI_SUM, win));
        } else {
          for (int i = 0; i < SLOT; i++)
            MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, row + (MPI_Aint)(i * sizeof(long)),
                                    MPI_SUM, win));
        }
        /* A ticket: the one origin that finds 0 leaves its mark. */
        long cmp = 0, got = -1, mark = t_rank + 1;
        MPI_OK(MPI_Compare_and_swap(&mark, &cmp, &got, MPI_LONG, t,
                                    at + (MPI_Aint)((longs - 1) * sizeof(long)), win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(got >= 0 && got <= t_size, "round %d: target %d kind %d: ticket %ld", round, t, k,
              got);
        won[t * KINDS + k] = got == 0;
      }
      MPI_OK(MPI_Win_flush(t, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Allreduce(MPI_IN_PLACE, won, t_size * KINDS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < t_size * KINDS; i++)
      CHECK(won[i] == 1, "round %d: target %d kind %d: %d tickets won", round, i / KINDS, i % KINDS,
            won[i]);
    for (int k = 0; k < KINDS; k++) {
      for (int o = 0; o < t_size; o++)
        for (int i = 0; i < SLOT; i++)
          CHECK(mem[k][(size_t)o * SLOT + i] == value(t_rank, o, i, round),
                "round %d kind %d: slot of origin %d, element %d: %ld", round, k, o, i,
                mem[k][(size_t)o * SLOT + i]);
      for (int i = 0; i < SLOT; i++)
        CHECK(mem[k][shared_row + (size_t)i] == t_size, "round %d kind %d: sum %d: %ld", round, k,
              i, mem[k][shared_row + (size_t)i]);
      const long ticket = mem[k][longs - 1];
      CHECK(ticket >= 1 && ticket <= t_size, "round %d kind %d: ticket %ld", round, k, ticket);
    }

    /* The owner's stores reach gets. */
    for (int k = 0; k < KINDS; k++)
      mem[k][0] = value(t_rank, t_rank, 99, round);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_sync(win));
    for (int t = 0; t < t_size; t++) {
      for (int k = 0; k < KINDS; k++) {
        long got = 0;
        MPI_OK(MPI_Get(&got, 1, MPI_LONG, t, addr[t * KINDS + k], 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(got == value(t, t, 99, round), "round %d: get from %d kind %d: %ld", round, t, k,
              got);
      }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* Puts and accumulates across the seam of the two halves: each origin adds a row there. */
    const size_t across = longs / 2 - SLOT / 2;
    long before[SLOT];
    memcpy(before, seam + across, sizeof before);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < t_size; t++)
      MPI_OK(MPI_Accumulate(ones, SLOT, MPI_LONG, t,
                            addr[t * KINDS + SEAM] + (MPI_Aint)(across * sizeof(long)), SLOT,
                            MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < SLOT; i++)
      CHECK(seam[across + (size_t)i] == before[i] + t_size, "round %d: seam %d: %ld, want %ld",
            round, i, seam[across + (size_t)i], before[i] + t_size);

    /* The pair of elements astride the seam (the last of the moved half, the first of the
     * private one). Under lock_all one origin adds to both, many times, while the others add
     * to the first alone with fetch_and_op: every addition lands. */
    const size_t pair = longs / 2 - 1;
    long pair_before[2] = {seam[pair], seam[pair + 1]};
    const int adder = (round + 1) % t_size;
    enum { REPEAT = 40 };
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < t_size; t++) {
      const MPI_Aint at = addr[t * KINDS + SEAM] + (MPI_Aint)(pair * sizeof(long));
      for (int i = 0; i < REPEAT; i++) {
        if (t_rank == adder)
          MPI_OK(MPI_Accumulate(ones, 2, MPI_LONG, t, at, 2, MPI_LONG, MPI_SUM, win));
        else
          MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, at, MPI_SUM, win));
      }
      MPI_OK(MPI_Win_flush(t, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(seam[pair] == pair_before[0] + (long)REPEAT * t_size &&
              seam[pair + 1] == pair_before[1] + REPEAT,
          "round %d: seam pair %ld %ld, want %ld %ld", round, seam[pair], seam[pair + 1],
          pair_before[0] + (long)REPEAT * t_size, pair_before[1] + REPEAT);

    /* Accumulates apply in order (the default accumulate_ordering) under fence: one origin
     * adds to the pair, reads the first element back, then replaces it. */
    pair_before[0] = seam[pair];
    MPI_OK(MPI_Win_fence(0, win));
    long seen = -1, fetched[4] = {0};
    if (t_rank == adder)
      for (int t = 0; t < t_size; t++) {
        const MPI_Aint at = addr[t * KINDS + SEAM] + (MPI_Aint)(pair * sizeof(long));
        MPI_OK(MPI_Accumulate(ones, 2, MPI_LONG, t, at, 2, MPI_LONG, MPI_SUM, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &fetched[t], MPI_LONG, t, at, MPI_NO_OP, win));
        MPI_OK(MPI_Accumulate(&rows[t][0], 1, MPI_LONG, t, at, 1, MPI_LONG, MPI_REPLACE, win));
      }
    MPI_OK(MPI_Win_fence(0, win));
    /* Each target learns what the adder's fetch saw there. */
    MPI_Scatter(fetched, 1, MPI_LONG, &seen, 1, MPI_LONG, adder, MPI_COMM_WORLD);
    CHECK(seen == pair_before[0] + 1, "round %d: fetch after the sum saw %ld, want %ld", round,
          seen, pair_before[0] + 1);
    CHECK(seam[pair] == value(t_rank, adder, 0, round), "round %d: replace not last: %ld", round,
          seam[pair]);

    MPI_Barrier(MPI_COMM_WORLD); /* nobody reaches the pages any more */
    MPI_OK(MPI_Win_detach(win, pages));
    CHECK(!t_moved_in_place(pages), "round %d: pages not back after detach", round);
    CHECK(pages[3] == value(t_rank, 0, 3, round), "round %d: detach lost data", round);
    free(pages);
  }
  MPI_OK(MPI_Win_detach(win, big));
  MPI_OK(MPI_Win_detach(win, small));
  MPI_OK(MPI_Win_detach(win, alloc_mem));
  MPI_OK(MPI_Win_detach(win, halves));
  MPI_OK(MPI_Win_free(&win)); /* with the second half still attached */
  CHECK(!t_moved_in_place(halves) && !t_moved_in_place(big), "pages not back after free");
  CHECK(big[3] == value(t_rank, 0, 3, ROUNDS - 1), "big block lost data");
  MPI_OK(MPI_Free_mem(alloc_mem));
  free(big);
  free(small);
  free(halves);
  free(addr);
  return t_finish("dynamic_shared");
}
