/* A rank that waits for a neighbour's data by spinning on MPI_Win_flush toward a rank it has
 * nothing outstanding to (an empty flush) must still serve the requests that bring that data:
 * on the message path the target applies puts and acknowledges flushes in its own MPI calls,
 * and osprey serves requests in only some of the empty flushes. In a ring, each rank puts a
 * block and then a flag to its right neighbour under lock_all, flushes, and spins on empty
 * flushes until its own flag shows the round; then every byte from its left neighbour is
 * checked. A rank that no longer served requests would leave its left neighbour's flush, and so
 * the ring, waiting: the spin gives up (and the test fails) after 60 s. Every window flavor. */
#include "common.h"

enum { BYTES = 4096, ROUNDS = 50 };

static void run(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, BYTES + 64, 1, MPI_COMM_WORLD)) return;
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  volatile int64_t* flag = (volatile int64_t*)(w.base + BYTES);
  *flag = -1;
  unsigned char* block = malloc(BYTES);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int round = 0; round < ROUNDS; round++) {
    t_fill(block, BYTES, t_rank, right, round);
    MPI_OK(MPI_Put(block, BYTES, MPI_BYTE, right, t_disp(&w, right, 0, 1), BYTES, MPI_BYTE, w.win));
    MPI_OK(MPI_Win_flush(right, w.win));
    const int64_t mark = round;
    MPI_OK(
        MPI_Put(&mark, 1, MPI_INT64_T, right, t_disp(&w, right, BYTES, 1), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_flush(right, w.win));
    const double give_up = MPI_Wtime() + 60;
    while (*flag != round) {
      MPI_OK(MPI_Win_flush(right, w.win)); /* nothing outstanding toward right any more */
      CHECK(MPI_Wtime() < give_up, "%s round %d: no data from rank %d after 60 s",
            t_flavor_names[f], round, left);
    }
    MPI_OK(MPI_Win_sync(w.win));
    const unsigned char* got = (const unsigned char*)w.base;
    for (size_t i = 0; i < BYTES; i++)
      CHECK(got[i] == t_pattern(left, t_rank, i, round),
            "%s round %d: byte %zu from rank %d is %d, want %d", t_flavor_names[f], round, i, left,
            got[i], t_pattern(left, t_rank, i, round));
    MPI_Barrier(MPI_COMM_WORLD); /* every rank checked before the next round overwrites */
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  free(block);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("flush_progress");
}
