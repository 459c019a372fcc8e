/* The host runs out of communicators (MPICH: about 2,000 context ids): osprey's window creation,
 * which needs a private communicator per user communicator, fails with an error class on every
 * rank and nothing else; once the program frees communicators, windows work again. */
#include "common.h"

enum { MAX_DUPS = 100000 };

static MPI_Comm dups[MAX_DUPS];

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int n = 0, rc = MPI_SUCCESS;
  while (n < MAX_DUPS && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &dups[n])) == MPI_SUCCESS)
    n++;
  CHECK(rc != MPI_SUCCESS, "the host never ran out of communicators (%d dups)", n);
  CHECK(n > 1, "no communicator could be duplicated");

  /* Every rank is refused, with the error on the communicator's handler. */
  char* base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  rc = MPI_Win_allocate(64, 1, MPI_INFO_NULL, dups[n - 1], &base, &win);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls != MPI_SUCCESS && win == MPI_WIN_NULL,
        "a window was created with no communicator left (rc %d)", rc);
  int refused = 1, all_refused = 0;
  MPI_Allreduce(&refused, &all_refused, 1, MPI_INT, MPI_MIN, dups[0]);
  CHECK(all_refused == 1, "some rank created the window");

  for (int i = 0; i < n; i++)
    MPI_OK(MPI_Comm_free(&dups[i]));

  /* Communicators are back: a window on a fresh dup moves data. */
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  struct t_win w;
  t_win_create(&w, T_ALLOCATE, 64, 1, c);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  unsigned char out[64];
  t_fill(out, sizeof out, t_rank, right, 0);
  MPI_OK(MPI_Win_fence(0, w.win));
  MPI_OK(MPI_Put(out, 64, MPI_BYTE, right, 0, 64, MPI_BYTE, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int i = 0; i < 64; i++)
    CHECK((unsigned char)w.base[i] == t_pattern(left, t_rank, (size_t)i, 0), "byte %d wrong", i);
  t_win_free(&w);
  MPI_OK(MPI_Comm_free(&c));
  return t_finish("host_limits");
}
