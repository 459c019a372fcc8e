/* A window larger than the memory the machine could give fails with MPI_ERR_NO_MEM on every
 * rank, at creation (never SIGBUS at first touch), also when only one rank asks too much; the
 * job then goes on with windows that fit, checked byte by byte. */
#include <unistd.h>

#include "common.h"

static void check_fails_everywhere(MPI_Aint mine, int shared) {
  void* base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  const int rc = shared
                     ? MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win)
                     : MPI_Win_allocate(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_NO_MEM,
        "%s of %lld bytes here: rc %d class %d, want MPI_ERR_NO_MEM",
        shared ? "MPI_Win_allocate_shared" : "MPI_Win_allocate", (long long)mine, rc, cls);
  CHECK(win == MPI_WIN_NULL, "a failed creation returned a window");
}

static void check_window_works(void) {
  enum { N = 1 << 16 };
  unsigned char* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  unsigned char* src = malloc(N);
  t_fill(src, N, t_rank, right, 0);
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put(src, N, MPI_BYTE, right, 0, N, MPI_BYTE, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (size_t i = 0; i < N; i++)
    CHECK(base[i] == t_pattern(left, t_rank, i, 0), "byte %zu is %d", i, base[i]);
  free(src);
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* Four times the physical memory: more than RAM and any usual swap together. */
  const MPI_Aint huge =
      (MPI_Aint)4 * (MPI_Aint)sysconf(_SC_PHYS_PAGES) * (MPI_Aint)sysconf(_SC_PAGESIZE);
  check_fails_everywhere(huge, 0);
  check_window_works();
  check_fails_everywhere(t_rank == t_size - 1 ? huge : 4096, 0);
  check_window_works();
  if (t_one_node(MPI_COMM_WORLD)) {
    check_fails_everywhere(huge, 1);
    check_fails_everywhere(t_rank == 0 ? huge : 4096, 1);
    check_window_works();
  }
  return t_finish("window_no_memory");
}
