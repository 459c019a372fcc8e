/* Halo exchange with general active-target synchronization (MPI_Win_post/start/complete/
 * wait), the pattern of stencil codes that synchronize only with their neighbours.
 *
 * An N x N grid is cut into blocks over a 2-D process grid (MPI_Dims_create,
 * MPI_Cart_create). Each rank's block, with a ring of ghost cells around it, is its window.
 * Every Jacobi iteration opens an exposure epoch to its neighbours (post) and an access epoch
 * to them (start), puts its edge rows into the neighbours' ghost rows and its edge columns
 * (an MPI_Type_vector: one double per row) into their ghost columns, closes both epochs
 * (complete, wait) and updates its block from the ghosts. The global boundary is fixed.
 *
 *   mpiexec -n 4 ./halo_pscw [N] [iterations]
 *
 * Checks, on every rank: every value of its block equals, bit for bit, the same Jacobi
 * iteration run serially over the whole grid (the same operations in the same order). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_name.h"

static void fail(const char* what, long long at, double got, double want) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "halo_pscw: rank %d: %s %lld: got %.17g, want %.17g\n", rank, what, at, got,
          want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The grid's starting values and its fixed boundary (row or column -1 and N). */
static double initial(int row, int col, int n) {
  if (row < 0 || col < 0 || row >= n || col >= n) return (double)(row + 2 * col) / n;
  return (double)((row * 7 + col * 13) % 17);
}

/* One Jacobi update; both the distributed and the serial code call it. */
static double average(double north, double south, double west, double east) {
  return 0.25 * (north + south + west + east);
}

/* Rows (or columns) of block `coord` when n are cut into `parts`, and where it starts. */
static int block_extent(int n, int parts, int coord) {
  return n / parts + (coord < n % parts);
}
static int block_start(int n, int parts, int coord) {
  return coord * (n / parts) + (coord < n % parts ? coord : n % parts);
}

/* The serial reference: `iterations` sweeps over the whole n x n grid plus its boundary. */
static double* serial_jacobi(int n, int iterations) {
  const int w = n + 2;
  double* u = malloc(sizeof(double) * (size_t)w * (size_t)w);
  double* next = malloc(sizeof(double) * (size_t)w * (size_t)w);
  for (int i = 0; i < w; i++)
    for (int j = 0; j < w; j++)
      u[i * w + j] = next[i * w + j] = initial(i - 1, j - 1, n);
  for (int it = 0; it < iterations; it++) {
    for (int i = 1; i <= n; i++)
      for (int j = 1; j <= n; j++)
        next[i * w + j] =
            average(u[(i - 1) * w + j], u[(i + 1) * w + j], u[i * w + j - 1], u[i * w + j + 1]);
    double* t = u;
    u = next;
    next = t;
  }
  free(next);
  return u;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 512;
  const int iterations = argc > 2 ? atoi(argv[2]) : 50;

  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  if (n < dims[0] || n < dims[1]) fail("grid too small for the process grid, N", n, 0, 0);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  int rank;
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);
  /* Neighbours; MPI_PROC_NULL on the global boundary. */
  int north, south, west, east;
  MPI_Cart_shift(grid, 0, 1, &north, &south);
  MPI_Cart_shift(grid, 1, 1, &west, &east);

  /* My block: rows x cols inside a ring of ghosts, row-major with a row of cols + 2. */
  const int rows = block_extent(n, dims[0], coords[0]);
  const int cols = block_extent(n, dims[1], coords[1]);
  const int row0 = block_start(n, dims[0], coords[0]);
  const int col0 = block_start(n, dims[1], coords[1]);
  const int stride = cols + 2;
  double* u;
  MPI_Win win;
  /* The size is rounded up to 16 bytes: MPICH 4.0.2's own RMA lands every operation 8 bytes
   * low at a rank whose window starts 8 bytes off a 16-byte boundary, which is where the
   * window of a rank after one whose size is an odd multiple of 8 bytes starts. */
  const MPI_Aint bytes = (MPI_Aint)sizeof(double) * (rows + 2) * stride;
  MPI_Win_allocate((bytes + 15) / 16 * 16, sizeof(double), MPI_INFO_NULL, grid, &u, &win);
  double* next = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
  char engine[MPI_MAX_INFO_VAL + 1];
  engine_name(win, engine);

  /* Initial values, ghosts included (ghosts on the global boundary keep theirs). */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < rows + 2; i++)
    for (int j = 0; j < stride; j++)
      u[i * stride + j] = initial(row0 + i - 1, col0 + j - 1, n);
  MPI_Win_unlock(rank, win);

  /* A column of my block (origin) and a ghost column of my west or east neighbour (target):
   * same rows, but the neighbour's row length may differ from mine. */
  MPI_Datatype my_column, west_column = MPI_DATATYPE_NULL, east_column = MPI_DATATYPE_NULL;
  MPI_Type_vector(rows, 1, stride, MPI_DOUBLE, &my_column);
  MPI_Type_commit(&my_column);
  int west_stride = 0, east_stride = 0;
  if (west != MPI_PROC_NULL) {
    west_stride = block_extent(n, dims[1], coords[1] - 1) + 2;
    MPI_Type_vector(rows, 1, west_stride, MPI_DOUBLE, &west_column);
    MPI_Type_commit(&west_column);
  }
  if (east != MPI_PROC_NULL) {
    east_stride = block_extent(n, dims[1], coords[1] + 1) + 2;
    MPI_Type_vector(rows, 1, east_stride, MPI_DOUBLE, &east_column);
    MPI_Type_commit(&east_column);
  }
  /* My north and south neighbours have my columns, so my row length; my south neighbour's
   * top ghost row is its row 0, my north neighbour's bottom ghost row its row (its rows) + 1. */
  const int north_rows = north == MPI_PROC_NULL ? 0 : block_extent(n, dims[0], coords[0] - 1);

  /* The group of my neighbours, both to post to and to start on. */
  int neighbours[4], count = 0;
  const int each[4] = {north, south, west, east};
  for (int k = 0; k < 4; k++)
    if (each[k] != MPI_PROC_NULL) neighbours[count++] = each[k];
  MPI_Group all, group;
  MPI_Comm_group(grid, &all);
  MPI_Group_incl(all, count, neighbours, &group);

  MPI_Barrier(grid);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    MPI_Win_post(group, 0, win);
    MPI_Win_start(group, 0, win);
    if (north != MPI_PROC_NULL) /* my first row -> its bottom ghost row */
      MPI_Put(&u[1 * stride + 1], cols, MPI_DOUBLE, north, (MPI_Aint)(north_rows + 1) * stride + 1,
              cols, MPI_DOUBLE, win);
    if (south != MPI_PROC_NULL) /* my last row -> its top ghost row */
      MPI_Put(&u[rows * stride + 1], cols, MPI_DOUBLE, south, 1, cols, MPI_DOUBLE, win);
    if (west != MPI_PROC_NULL) /* my first column -> its east ghost column */
      MPI_Put(&u[1 * stride + 1], 1, my_column, west, (MPI_Aint)west_stride + west_stride - 1, 1,
              west_column, win);
    if (east != MPI_PROC_NULL) /* my last column -> its west ghost column */
      MPI_Put(&u[1 * stride + cols], 1, my_column, east, east_stride, 1, east_column, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (int i = 1; i <= rows; i++)
      for (int j = 1; j <= cols; j++)
        next[(i - 1) * cols + j - 1] = average(u[(i - 1) * stride + j], u[(i + 1) * stride + j],
                                               u[i * stride + j - 1], u[i * stride + j + 1]);
    for (int i = 1; i <= rows; i++)
      memcpy(&u[i * stride + 1], &next[(i - 1) * cols], sizeof(double) * (size_t)cols);
  }
  const double elapsed = MPI_Wtime() - t0;
  double slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, grid);

  /* Every rank checks its block against the serial run. */
  double* reference = serial_jacobi(n, iterations);
  double sum = 0;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= cols; j++) {
      const double want = reference[(row0 + i) * (n + 2) + col0 + j];
      if (u[i * stride + j] != want)
        fail("value at global cell", (long long)(row0 + i - 1) * n + col0 + j - 1,
             u[i * stride + j], want);
      sum += u[i * stride + j];
    }
  double total;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  if (rank == 0)
    printf(
        "halo_pscw [%s]: %d ranks as %d x %d, %d x %d grid, %d iterations, sum %.6f: %.4f s "
        "ok\n",
        engine, size, dims[0], dims[1], n, n, iterations, total, slowest);

  free(reference);
  free(next);
  MPI_Group_free(&group);
  MPI_Group_free(&all);
  MPI_Type_free(&my_column);
  if (west_column != MPI_DATATYPE_NULL) MPI_Type_free(&west_column);
  if (east_column != MPI_DATATYPE_NULL) MPI_Type_free(&east_column);
  MPI_Win_free(&win);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
