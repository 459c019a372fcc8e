/* Issue 12's loop, checked: an allocated window under one lock_all, and per iteration a local
 * store, MPI_Win_sync, MPI_Barrier, a get of the right neighbour's stored word (the store and
 * the barrier must have made it visible), one operation to the right neighbour (put,
 * accumulate, fetch_and_op, compare_and_swap in turn) completed by MPI_Win_flush, and a second
 * barrier after which each rank checks what its left neighbour did to it. Run with more ranks
 * than cores, it goes through every wait of an oversubscribed node: the node barrier osprey
 * puts under MPI_Barrier there, lock_all and flush. Exits on the first wrong value. */
#include "common.h"

enum { ITERS = 400 }; /* or argv[1] */

static int64_t stamp(int rank, long i) {
  return (int64_t)rank * 1000000 + i;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const long iters = argc > 1 ? atol(argv[1]) : ITERS;
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  int64_t* mem; /* [0] local store, [1] left's puts, [2] left's counter */
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(3 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                          &win));
  mem[0] = mem[1] = mem[2] = -1;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Win_sync(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int64_t at_right = -1; /* what right's counter holds: only this rank changes it */
  int64_t left_counter = -1, left_put = -1;
  for (long i = 0; i < iters; i++) {
    mem[0] = stamp(t_rank, i);
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int64_t seen = -2;
    MPI_OK(MPI_Get(&seen, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, win));
    const int64_t add = t_rank + 1 + i % 7, mine = stamp(t_rank, i);
    int64_t got = -2, cmp = at_right, swap = 0; /* all live until the flush below */
    switch (i % 4) {
      case 0:
        MPI_OK(MPI_Put(&mine, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, win));
        break;
      case 1:
        MPI_OK(MPI_Accumulate(&add, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, MPI_SUM, win));
        break;
      case 2:
        MPI_OK(MPI_Fetch_and_op(&add, &got, MPI_INT64_T, right, 2, MPI_SUM, win));
        break;
      default: {
        swap = at_right + add;
        MPI_OK(MPI_Compare_and_swap(&swap, &cmp, &got, MPI_INT64_T, right, 2, win));
        break;
      }
    }
    MPI_OK(MPI_Win_flush(right, win));
    CHECK(seen == stamp(right, i), "iteration %ld: right's stored word %lld, want %lld", i,
          (long long)seen, (long long)stamp(right, i));
    if (i % 4 >= 2)
      CHECK(got == at_right, "iteration %ld: fetched %lld, want %lld", i, (long long)got,
            (long long)at_right);
    if (i % 4 != 0) at_right += add;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_sync(win));
    /* What the left neighbour did this iteration, computed as it did. */
    const int64_t ladd = left + 1 + i % 7;
    if (i % 4 == 0)
      left_put = stamp(left, i);
    else
      left_counter += ladd;
    CHECK(mem[1] == left_put, "iteration %ld: left's put %lld, want %lld", i, (long long)mem[1],
          (long long)left_put);
    CHECK(mem[2] == left_counter, "iteration %ld: counter %lld, want %lld", i, (long long)mem[2],
          (long long)left_counter);
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Win_free(&win));
  return t_finish("oversub_mix");
}
