/* PSCW misuse is reported as MPI_ERR_RMA_SYNC (or the class the standard names) and never
 * hangs: complete without start, wait/test without post, start inside another access epoch,
 * post inside an exposure epoch, operations to targets outside the start group, groups with
 * processes outside the window, fence and free inside PSCW epochs, post while another process
 * holds a lock on the window (MPI_ERR_RMA_CONFLICT). */
#include "common.h"

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  int64_t* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4 * sizeof(int64_t), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Group world, self_g, right_g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  MPI_Group_incl(world, 1, &right, &right_g);
  MPI_Group_incl(world, 1, &t_rank, &self_g);
  int flag;
  int64_t v = 1;

  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_complete(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_wait(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_test(win, &flag));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_start(right_g, MPI_MODE_NOPRECEDE, win));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_post(right_g, MPI_MODE_NOSUCCEED, win));
  EXPECT_CLASS(MPI_ERR_GROUP, MPI_Win_start(MPI_GROUP_NULL, 0, win));

  /* A group with a process that is not in the window: a window over MPI_COMM_SELF. */
  if (t_size > 1) {
    int64_t* m2;
    MPI_Win selfwin;
    MPI_OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_SELF, &m2, &selfwin));
    MPI_Win_set_errhandler(selfwin, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_ERR_GROUP, MPI_Win_start(right_g, 0, selfwin));
    EXPECT_CLASS(MPI_ERR_GROUP, MPI_Win_post(right_g, 0, selfwin));
    MPI_OK(MPI_Win_free(&selfwin));
  }

  /* Start inside a lock_all epoch, and inside another start. */
  MPI_OK(MPI_Win_lock_all(0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_start(right_g, 0, win));
  MPI_OK(MPI_Win_unlock_all(win));

  MPI_Group left_g;
  MPI_Group_incl(world, 1, &left, &left_g);

  /* Rank 0's window is locked (and the lock taken, by a flushed put) by the last rank. */
  const int last = t_size - 1;
  if (t_rank == last) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_flush(0, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) EXPECT_CLASS(MPI_ERR_RMA_CONFLICT, MPI_Win_post(left_g, 0, win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == last) MPI_OK(MPI_Win_unlock(0, win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    CHECK(mem[3] == 1, "the locked put did not land: %lld", (long long)mem[3]);
    mem[3] = 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_OK(MPI_Win_post(left_g, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_post(left_g, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_free(&win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_fence(0, win));
  MPI_OK(MPI_Win_start(right_g, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_start(right_g, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  if (t_size > 2) {
    const int other = (t_rank + 2) % t_size;
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(&v, 1, MPI_INT64_T, other, 0, 1, MPI_INT64_T, win));
  }
  MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, win));
  MPI_OK(MPI_Win_complete(win));
  MPI_OK(MPI_Win_wait(win));
  CHECK(mem[1] == 1, "the legal put did not land: %lld", (long long)mem[1]);
  CHECK(mem[0] == 0 && mem[2] == 0 && mem[3] == 0, "a failed call wrote");

  /* An epoch's targets are forgotten when it completes (the inline path keeps its own marks):
   * after complete, and in a next epoch whose group does not hold them. */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_post(self_g, 0, win));
  MPI_OK(MPI_Win_start(self_g, 0, win));
  if (right != t_rank)
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win));
  MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t_rank, 3, 1, MPI_INT64_T, win));
  MPI_OK(MPI_Win_complete(win));
  MPI_OK(MPI_Win_wait(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[2] == 0 && mem[3] == 1, "second epoch: mem[2] %lld (want 0), mem[3] %lld (want 1)",
        (long long)mem[2], (long long)mem[3]);
  MPI_Group_free(&left_g);
  MPI_Group_free(&world);
  MPI_Group_free(&self_g);
  MPI_Group_free(&right_g);
  MPI_OK(MPI_Win_free(&win));
  return t_finish("errors_pscw");
}
