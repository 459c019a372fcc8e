/* An MPI program that uses an installed osprey: built against its installed header
 * (osprey/version.h) and linked with it (find_package or pkg-config), or plain and run under
 * osprey-run. It moves data with RMA, checks every value, and checks that osprey served its
 * window: the window's info must hold osprey_version, as the installed header names it.
 *   mpiexec -n 2 ./install_rma          prints "install_rma: OK (<version>, path <path>)" */
#include <mpi.h>
#include <osprey/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };

static int rank;

static void check(int ok, const char* what, long at) {
  if (ok) return;
  fprintf(stderr, "[rank %d] install_rma: %s (at %ld)\n", rank, what, at);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int pattern(int origin, int target, int i) {
  return origin * 1000003 + target * 7919 + i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* One slot of N ints per origin, and a counter, in every rank's window. */
  int* mem;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)sizeof(int) * ((MPI_Aint)N * size + 1), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &mem, &win);

  MPI_Info info;
  MPI_Win_get_info(win, &info);
  char version[MPI_MAX_INFO_VAL + 1] = "", path[MPI_MAX_INFO_VAL + 1] = "";
  int has_version = 0, has_path = 0;
  MPI_Info_get(info, "osprey_version", MPI_MAX_INFO_VAL, version, &has_version);
  MPI_Info_get(info, "osprey_path", MPI_MAX_INFO_VAL, path, &has_path);
  MPI_Info_free(&info);
  if (!has_version) {
    /* Every rank sees the same (osprey is loaded into all or none): end cleanly, so that the
     * message is not lost to an abort. */
    fprintf(stderr, "[rank %d] install_rma: the window is not osprey's (no osprey_version)\n",
            rank);
    fflush(stderr);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 3;
  }
  check(!strcmp(version, OSPREY_VERSION_STRING), "osprey_version differs from the header's", 0);
  check(has_path, "the window's info has no osprey_path", 0);

  /* Fence epoch: every origin puts its pattern into its slot at every target. */
  int* out = malloc(sizeof(int) * N);
  MPI_Win_fence(0, win);
  memset(mem, 0, sizeof(int) * ((size_t)N * size + 1));
  MPI_Win_fence(0, win);
  for (int t = 0; t < size; t++) {
    int* buf = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
      buf[i] = pattern(rank, t, i);
    MPI_Put(buf, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT, win);
    MPI_Win_fence(0, win); /* buf is free to go only after the epoch */
    free(buf);
  }
  for (int o = 0; o < size; o++)
    for (int i = 0; i < N; i++)
      check(mem[(size_t)o * N + i] == pattern(o, rank, i), "wrong value put", (long)o * N + i);

  /* Passive target: get back what this rank put at its right neighbour, and count every rank
   * on rank 0's counter. */
  const int right = (rank + 1) % size;
  MPI_Win_lock_all(0, win);
  MPI_Get(out, N, MPI_INT, right, (MPI_Aint)rank * N, N, MPI_INT, win);
  const int one = 1;
  MPI_Accumulate(&one, 1, MPI_INT, 0, (MPI_Aint)N * size, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock_all(win);
  for (int i = 0; i < N; i++)
    check(out[i] == pattern(rank, right, i), "wrong value got", i);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int count = -1;
    MPI_Get(&count, 1, MPI_INT, 0, (MPI_Aint)N * size, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    check(count == size, "wrong accumulated count", count);
  }

  free(out);
  MPI_Win_free(&win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("install_rma: OK (%s, path %s, %d ranks)\n", version, path, size);
  MPI_Finalize();
  return 0;
}
