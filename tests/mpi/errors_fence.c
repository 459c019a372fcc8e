/* Bad input on the fence path returns the MPI error class the standard names, through the
 * window's error handler (MPI_ERRORS_RETURN here), and writes nothing out of bounds. */
#include "common.h"

enum { N = 16 };

/* The code maps back to its class and has a description (osprey's own where the host keeps
 * attached strings; MPICH 4.0.2 does not, and then osprey prints its message for fatal
 * handlers, which errors_fatal checks). */
static void check_message(int rc) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0, cls = -1;
  MPI_Error_string(rc, msg, &len);
  MPI_Error_class(rc, &cls);
  CHECK(len > 0 && cls == MPI_ERR_RMA_SYNC, "error code %d: class %d, string %s", rc, cls, msg);
}

static int on_message_path(MPI_Win w) {
  char path[MPI_MAX_INFO_VAL + 1];
  return t_win_path(w, path) && strstr(path, "am") != NULL;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int right = (t_rank + 1) % t_size;

  /* Creation errors are raised on the communicator, on every rank. */
  {
    MPI_Win bad;
    void* p;
    EXPECT_CLASS(MPI_ERR_SIZE, MPI_Win_allocate(t_rank == 0 ? -1 : 8, 1, MPI_INFO_NULL,
                                                MPI_COMM_WORLD, &p, &bad));
    EXPECT_CLASS(MPI_ERR_DISP, MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &bad));
  }

  /* A shared window (where every rank shares the node) so that rank r's neighbour memory
   * follows it: out-of-bounds writes would show up there. */
  int* mem;
  MPI_Win win;
  if (t_one_node(MPI_COMM_WORLD))
    MPI_OK(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mem, &win));
  else
    MPI_OK(
        MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < N; i++)
    mem[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int src[2 * N];
  for (int i = 0; i < 2 * N; i++)
    src[i] = 7;

  /* Outside any epoch. */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Get(src, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  {
    int rc = MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    check_message(rc);
  }
  /* Request-based operations need a passive epoch. */
  {
    MPI_Request r;
    MPI_OK(MPI_Win_fence(0, win));
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Rput(src, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r));
    EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Rget(src, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r));
  }
  /* Bad ranks, displacements, counts and types inside an epoch. */
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Put(src, 1, MPI_INT, t_size, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Get(src, 1, MPI_INT, -7, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 1, MPI_INT, right, N, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 2, MPI_INT, right, N - 1, 2, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, N + 1, MPI_INT, right, 0, N + 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(src, 3, MPI_INT, right, N - 2, 3, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_DISP, MPI_Put(src, 1, MPI_INT, right, -1, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Put(src, -1, MPI_INT, right, 0, -1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Put(src, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Put(src, 2, MPI_INT, right, 0, 1, MPI_INT, win));
  /* A vector target type whose extent runs past the end. */
  {
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, N, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 2, MPI_INT, right, 0, 1, vec, win));
    MPI_Type_free(&vec);
  }
  /* Target types that run backward from the displacement, before the window's start: a vector
   * with a negative stride, a resized type whose extent is negative (in the shared window they
   * would land in the left neighbour's memory, checked below). And a type whose data starts so
   * far out that the displacement plus its start overflows 64 bits. */
  {
    MPI_Datatype negv, negr, far;
    MPI_Type_vector(2, 1, -3, MPI_INT, &negv);
    MPI_Type_create_resized(MPI_INT, 0, -2 * (MPI_Aint)sizeof(int), &negr);
    const int one = 1;
    const MPI_Aint start = INT64_MAX - 16;
    MPI_Type_create_hindexed(1, &one, &start, MPI_INT, &far);
    MPI_Type_commit(&negv);
    MPI_Type_commit(&negr);
    MPI_Type_commit(&far);
    EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 2, MPI_INT, right, 2, 1, negv, win));
    EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(src, 2, MPI_INT, right, 2, 1, negv, win));
    EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 3, MPI_INT, right, 1, 3, negr, win));
    EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(src, 1, MPI_INT, right, N - 1, 1, far, win));
    MPI_Type_free(&negv);
    MPI_Type_free(&negr);
    MPI_Type_free(&far);
  }
  /* MPI_PROC_NULL is a valid no-op target. */
  MPI_OK(MPI_Put(src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));

  /* Fence assertion misuse. */
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_fence(MPI_MODE_NOCHECK, win));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_fence(1 << 30, win));
  MPI_OK(MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  /* Freeing with RMA calls not completed by a fence. */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_free(&win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  /* Ranks disagreeing on NOPRECEDE: every rank learns it, nobody hangs. On the message path a
   * fence with MPI_MODE_NOPRECEDE sends nothing at all (by design), so there the mismatch is
   * not detectable and the erroneous call is not made. */
  if (t_size > 1 && !on_message_path(win)) {
    EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_fence(t_rank == 0 ? MPI_MODE_NOPRECEDE : 0, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  }

  /* Nothing was written anywhere but word 0 of each window. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[0] == 7, "the legal put did not land");
  for (int i = 1; i < N; i++)
    CHECK(mem[i] == -1, "word %d was written: %d", i, mem[i]);

  /* Window-flavor errors. */
  EXPECT_CLASS(MPI_ERR_RMA_FLAVOR, MPI_Win_attach(win, src, 4));
  EXPECT_CLASS(MPI_ERR_RMA_FLAVOR, MPI_Win_detach(win, src));
  MPI_OK(MPI_Win_free(&win));
  {
    int* a;
    MPI_Win w2;
    MPI_OK(MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &w2));
    MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
    MPI_Aint s;
    int du;
    void* p;
    EXPECT_CLASS(MPI_ERR_RMA_FLAVOR, MPI_Win_shared_query(w2, 0, &s, &du, &p));
    MPI_OK(MPI_Win_free(&w2));
  }
  {
    MPI_Win dyn;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    char buf[64];
    MPI_OK(MPI_Win_attach(dyn, buf, 32));
    EXPECT_CLASS(MPI_ERR_RMA_ATTACH, MPI_Win_attach(dyn, buf + 16, 32));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Win_detach(dyn, buf + 1));
    MPI_OK(MPI_Win_detach(dyn, buf));
    MPI_OK(MPI_Win_free(&dyn));
  }
  /* A handle that is not a window: raised on MPI_COMM_WORLD. */
  EXPECT_CLASS(MPI_ERR_WIN, MPI_Win_fence(0, MPI_WIN_NULL));
  EXPECT_CLASS(MPI_ERR_WIN, MPI_Put(src, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL));
  return t_finish("errors_fence");
}
