/* A target that sits in a blocking host call (MPI_Barrier, MPI_Recv, MPI_Wait, a blocking
 * collective) or computes must not stall the origins that lock, put and unlock its window. */
#include <time.h>

#include "common.h"

enum { EPOCHS = 100 };

static MPI_Win win;
static int64_t* mem;

static void hammer(int phase) {
  for (int e = 0; e < EPOCHS; e++) {
    int64_t v = (int64_t)phase * 1000 + e, old, one = 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, t_rank, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(0, win));
  }
}

static void verify(int phase) {
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK(mem[0] == (int64_t)phase * EPOCHS * (t_size - 1), "phase %d: counter %lld", phase,
        (long long)mem[0]);
  for (int r = 1; r < t_size; r++)
    CHECK(mem[r] == (int64_t)phase * 1000 + EPOCHS - 1, "phase %d: rank %d wrote %lld", phase, r,
          (long long)mem[r]);
  MPI_OK(MPI_Win_unlock(0, win));
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
  MPI_OK(MPI_Win_allocate(t_size * sizeof(int64_t), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, (size_t)t_size * sizeof(int64_t));
  MPI_Barrier(MPI_COMM_WORLD);

  /* 1: the target waits in MPI_Barrier until the origins are done. */
  if (t_rank != 0) hammer(1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) verify(1);
  MPI_Barrier(MPI_COMM_WORLD);
  /* 2: in MPI_Recv of a message the last origin sends after its epochs. */
  if (t_rank == 0) {
    int token;
    MPI_Recv(&token, 1, MPI_INT, t_size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    hammer(2);
  }
  if (t_rank == t_size - 1) {
    MPI_Barrier(MPI_COMM_SELF);
    int token = 1;
    /* Everyone else finished too before the token goes. */
    MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) verify(2);
  MPI_Barrier(MPI_COMM_WORLD);
  /* 3: in MPI_Wait on a host request, and in a blocking reduction. */
  if (t_rank == 0) {
    int token;
    MPI_Request r;
    MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    hammer(3);
    if (t_rank == 1) {
      int token = 1;
      MPI_Send(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
  }
  int sum = 0, one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == t_size, "allreduce %d", sum);
  if (t_rank == 0) verify(3);
  MPI_Barrier(MPI_COMM_WORLD);
  /* 4: the target computes, outside MPI, until its counter shows all the origins' work. This
   * needs shared memory (no target involvement) or the progress thread. */
  const char* thread = getenv("OSPREY_PROGRESS_THREAD");
  char path[MPI_MAX_INFO_VAL + 1];
  t_win_path(win, path);
  if ((thread && !strcmp(thread, "1")) || !strcmp(path, "shm")) {
    if (t_rank == 0) {
      /* Polled with atomic loads: the progress thread updates it atomically meanwhile. */
      const double t0 = MPI_Wtime();
      int64_t c;
      while ((c = __atomic_load_n(mem, __ATOMIC_ACQUIRE)) < 4LL * EPOCHS * (t_size - 1))
        CHECK(MPI_Wtime() - t0 < 60, "computing target starved: counter %lld", (long long)c);
    } else {
      hammer(4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) verify(4);
  }
  MPI_OK(MPI_Win_free(&win));
  return t_finish("am_busy_target");
}
