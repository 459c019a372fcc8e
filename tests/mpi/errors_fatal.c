/* With the default MPI_ERRORS_ARE_FATAL, a bad target rank aborts the job with osprey's
 * message and the error class (the test expects the abort and checks both). */
#include "common.h"

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  int* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_OK(MPI_Win_fence(0, win));
  if (t_rank == 0) {
    int v = 1;
    MPI_Put(&v, 1, MPI_INT, t_size + 3, 0, 1, MPI_INT, win);
    printf("errors_fatal: still running after a fatal error\n");
  }
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
