/* A window over private memory (malloc): created over it, or dynamic with it as the one
 * attached region, for the tests of node peers reached by cross-memory attach. Shared by the
 * tests that stage operations in the target's area. */
#ifndef OSPREY_TEST_PRIVATE_WINDOW_H
#define OSPREY_TEST_PRIVATE_WINDOW_H

#include "common.h"

typedef struct {
  MPI_Win win;
  long* mem;       /* zeroed longs */
  MPI_Aint* bases; /* dynamic: every rank's address of mem */
} Win;

/* The displacement of element `index` at `target`. */
static inline MPI_Aint disp_of(const Win* w, int target, size_t index) {
  if (w->bases) return w->bases[target] + (MPI_Aint)(index * sizeof(long));
  return (MPI_Aint)index;
}

static inline void make_window(Win* w, size_t longs, int dynamic) {
  w->mem = calloc(longs, sizeof(long));
  CHECK(w->mem, "out of memory");
  w->bases = NULL;
  MPI_Aint bytes = (MPI_Aint)(longs * sizeof(long));
  if (!dynamic) {
    MPI_OK(MPI_Win_create(w->mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    return;
  }
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
  MPI_OK(MPI_Win_attach(w->win, w->mem, bytes));
  w->bases = malloc((size_t)t_size * sizeof(MPI_Aint));
  MPI_Aint mine;
  MPI_Get_address(w->mem, &mine);
  MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, w->bases, 1, MPI_AINT, MPI_COMM_WORLD));
}

static inline void free_window(Win* w) {
  if (w->bases) MPI_OK(MPI_Win_detach(w->win, w->mem));
  MPI_OK(MPI_Win_free(&w->win));
  free(w->mem);
  free(w->bases);
}

#endif
