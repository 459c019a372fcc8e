/* A linked list grown by every rank at once on a dynamic window, as RMA list and queue codes
 * build it: each element is its own attached region (thousands per rank); a rank appends by
 * swapping the global tail pointer (16-byte MPI_BYTE get_accumulate MPI_REPLACE at rank 0),
 * then links its predecessor's next pointer to it (16-byte MPI_BYTE accumulate MPI_REPLACE),
 * and chases the list with 16-byte MPI_NO_OP get_accumulates, all under lock_all + flush. A
 * pointer read half old, half new sends the chaser to a wrong rank or unattached memory. At
 * the end rank 0 walks the whole list: every element exactly once, every value right. */
#include <stddef.h>

#include "common.h"

enum { PER_RANK = 1000 };

typedef struct {
  int64_t rank; /* -1: nil */
  int64_t disp;
} ptr_t;

typedef struct {
  ptr_t next;
  int64_t value;
  int64_t pad;
} elem_t;

static MPI_Win win;

static ptr_t read_ptr(ptr_t at, MPI_Aint field) {
  ptr_t p;
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, &p, sizeof p, MPI_BYTE, (int)at.rank,
                            at.disp + field, sizeof p, MPI_BYTE, MPI_NO_OP, win));
  MPI_OK(MPI_Win_flush((int)at.rank, win));
  CHECK((p.rank == -1) == (p.disp == -1), "torn pointer {%lld, %lld}", (long long)p.rank,
        (long long)p.disp);
  CHECK(p.rank >= -1 && p.rank < t_size, "pointer to rank %lld", (long long)p.rank);
  return p;
}

static int64_t read_value(ptr_t at) {
  int64_t v;
  MPI_OK(MPI_Get(&v, 1, MPI_INT64_T, (int)at.rank, at.disp + offsetof(elem_t, value), 1,
                 MPI_INT64_T, win));
  MPI_OK(MPI_Win_flush((int)at.rank, win));
  return v;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  /* Rank 0 holds the head element and the tail pointer. */
  elem_t* head = calloc(1, sizeof(elem_t));
  ptr_t* tail = calloc(1, sizeof(ptr_t));
  ptr_t anchors[2] = {{-1, -1}, {-1, -1}}; /* head, tail */
  if (t_rank == 0) {
    head->next = (ptr_t){-1, -1};
    head->value = -1;
    MPI_OK(MPI_Win_attach(win, head, sizeof *head));
    MPI_OK(MPI_Win_attach(win, tail, sizeof *tail));
    MPI_Aint a;
    MPI_Get_address(head, &a);
    anchors[0] = (ptr_t){0, a};
    *tail = anchors[0];
    MPI_Get_address(tail, &a);
    anchors[1] = (ptr_t){0, a};
  }
  MPI_Bcast(anchors, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);

  elem_t** mine = malloc(sizeof(elem_t*) * PER_RANK);
  ptr_t cursor = anchors[0]; /* how far this rank has chased the list */
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int i = 0; i < PER_RANK; i++) {
    elem_t* e = calloc(1, sizeof(elem_t));
    e->next = (ptr_t){-1, -1};
    e->value = (int64_t)t_rank * PER_RANK + i;
    MPI_OK(MPI_Win_attach(win, e, sizeof *e));
    mine[i] = e;
    MPI_Aint a;
    MPI_Get_address(e, &a);
    ptr_t me = {t_rank, a}, pred;
    MPI_OK(MPI_Get_accumulate(&me, sizeof me, MPI_BYTE, &pred, sizeof pred, MPI_BYTE, 0,
                              anchors[1].disp, sizeof pred, MPI_BYTE, MPI_REPLACE, win));
    MPI_OK(MPI_Win_flush(0, win));
    CHECK(pred.rank >= 0 && pred.rank < t_size && pred.disp != -1, "torn tail {%lld, %lld}",
          (long long)pred.rank, (long long)pred.disp);
    MPI_OK(MPI_Accumulate(&me, sizeof me, MPI_BYTE, (int)pred.rank,
                          pred.disp + offsetof(elem_t, next), sizeof me, MPI_BYTE, MPI_REPLACE,
                          win));
    MPI_OK(MPI_Win_flush((int)pred.rank, win));
    /* Chase: follow next pointers as far as they are linked. */
    for (int hops = 0; hops < 8; hops++) {
      ptr_t n = read_ptr(cursor, offsetof(elem_t, next));
      if (n.rank == -1) break;
      const int64_t v = read_value(n);
      CHECK(v >= 0 && v < (int64_t)t_size * PER_RANK, "element value %lld", (long long)v);
      cursor = n;
    }
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  if (t_rank == 0) {
    /* Walk the whole list. */
    const int64_t total = (int64_t)t_size * PER_RANK;
    char* found = calloc((size_t)total, 1);
    MPI_OK(MPI_Win_lock_all(0, win));
    ptr_t at = anchors[0];
    int64_t n = 0;
    for (;;) {
      ptr_t next = read_ptr(at, offsetof(elem_t, next));
      if (next.rank == -1) break;
      const int64_t v = read_value(next);
      CHECK(v >= 0 && v < total, "element value %lld", (long long)v);
      CHECK(!found[v], "element %lld linked twice", (long long)v);
      found[v] = 1;
      at = next;
      n++;
      CHECK(n <= total, "list longer than %lld elements", (long long)total);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    CHECK(n == total, "list has %lld elements, want %lld", (long long)n, (long long)total);
    free(found);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_free(&win));
  for (int i = 0; i < PER_RANK; i++)
    free(mine[i]);
  free(mine);
  free(head);
  free(tail);
  return t_finish("linked_list");
}
