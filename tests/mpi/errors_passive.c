/* Bad input on the passive-target and accumulate paths returns the class the standard names
 * and leaves the window usable. */
#include <wchar.h>

#include "common.h"

static int user_fn_called = 0;
static void user_fn(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)in, (void)inout, (void)len, (void)t;
  user_fn_called++;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  int64_t* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(8 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                          &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < 8; i++)
    mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (t_rank + 1) % t_size;
  int64_t v = 5, r;
  double dv = 1.0, dr;

  EXPECT_CLASS(MPI_ERR_LOCKTYPE, MPI_Win_lock(12345, right, 0, win));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Win_lock(MPI_LOCK_SHARED, t_size, 0, win));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOPRECEDE, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock(right, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock_all(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush(right, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush_all(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush_local(right, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush_local_all(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC,
               MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_SUM, win));

  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win)); /* nested */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock_all(0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_fence(0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_free(&win));
  if (t_size > 2) {
    const int other = (t_rank + 2) % t_size;
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(&v, 1, MPI_INT64_T, other, 0, 1, MPI_INT64_T, win));
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush(other, win));
  }
  /* Operations and datatypes that do not go together. */
  EXPECT_CLASS(MPI_ERR_OP,
               MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_MAXLOC, win));
  EXPECT_CLASS(MPI_ERR_OP,
               MPI_Accumulate(&dv, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, MPI_BAND, win));
  {
    /* Pairs no host applies either (MPI_CHAR sums and logical operations on doubles are
     * accepted, as MPICH does: see op_type_matrix). */
    double dc[2] = {1, 2};
    EXPECT_CLASS(MPI_ERR_OP, MPI_Accumulate(dc, 1, MPI_C_DOUBLE_COMPLEX, right, 0, 1,
                                            MPI_C_DOUBLE_COMPLEX, MPI_MAX, win));
    char b = 1;
    EXPECT_CLASS(MPI_ERR_OP,
                 MPI_Accumulate(&b, 1, MPI_C_BOOL, right, 0, 1, MPI_C_BOOL, MPI_SUM, win));
    wchar_t wc = 1;
    EXPECT_CLASS(MPI_ERR_OP,
                 MPI_Accumulate(&wc, 1, MPI_WCHAR, right, 0, 1, MPI_WCHAR, MPI_SUM, win));
  }
  EXPECT_CLASS(MPI_ERR_OP, MPI_Fetch_and_op(&v, &r, MPI_INT64_T, right, 0, MPI_OP_NULL, win));
  {
    MPI_Op mine;
    MPI_Op_create(user_fn, 1, &mine);
    EXPECT_CLASS(MPI_ERR_OP,
                 MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, mine, win));
    MPI_Op_free(&mine);
  }
  EXPECT_CLASS(MPI_ERR_TYPE,
               MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_DOUBLE, MPI_SUM, win));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Compare_and_swap(&dv, &dv, &dr, MPI_DOUBLE, right, 0, win));
  {
    MPI_Datatype mixed, vec;
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dp, ts, &mixed);
    MPI_Type_commit(&mixed);
    char buf[16] = {0};
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Accumulate(buf, 1, mixed, right, 0, 1, mixed, MPI_SUM, win));
    MPI_Type_vector(2, 1, 2, MPI_INT64_T, &vec);
    MPI_Type_commit(&vec);
    int64_t two[3];
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Fetch_and_op(two, two, vec, right, 0, MPI_SUM, win));
    MPI_Type_free(&mixed);
    MPI_Type_free(&vec);
  }
  EXPECT_CLASS(MPI_ERR_RMA_RANGE,
               MPI_Accumulate(&v, 1, MPI_INT64_T, right, 8, 1, MPI_INT64_T, MPI_SUM, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Fetch_and_op(&v, &r, MPI_INT64_T, right, 8, MPI_SUM, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Compare_and_swap(&v, &v, &r, MPI_INT64_T, right, 9, win));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Fetch_and_op(&v, &r, MPI_INT64_T, -3, 0, MPI_SUM, win));
  /* The epoch still works after all that. */
  MPI_OK(MPI_Accumulate(&v, 1, MPI_INT64_T, right, 1, 1, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock(right, win));
  CHECK(user_fn_called == 0, "a user-defined operation was applied");

  MPI_OK(MPI_Win_lock_all(0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock_all(0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock(right, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_free(&win));
  MPI_OK(MPI_Accumulate(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock_all(win));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_lock_all(MPI_MODE_NOSTORE, win));

  /* An empty fence epoch may be followed by a lock epoch; a fence epoch with operations not. */
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  MPI_OK(MPI_Win_unlock(right, win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 3, 1, MPI_INT64_T, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[1] == 5 && mem[2] == 5 && mem[3] == 5, "legal operations: %lld %lld %lld",
        (long long)mem[1], (long long)mem[2], (long long)mem[3]);
  for (int i = 4; i < 8; i++)
    CHECK(mem[i] == 0, "word %d written", i);
  CHECK(mem[0] == 0, "word 0 written by a failed call");
  MPI_OK(MPI_Win_free(&win));
  return t_finish("errors_passive");
}
