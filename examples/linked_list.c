/* A linked list that every rank grows at once, on a dynamic window: the pattern of RMA
 * queues, mailboxes and distributed object stores whose elements are allocated one by one
 * and must become reachable by any rank.
 *
 * Each element is a separate malloc'ed block that its rank attaches to the window
 * (MPI_Win_attach) before publishing it. A pointer to an element is one 64-bit word naming
 * its rank and address (the displacement MPI_Get_address returns for it), so that one
 * MPI_Compare_and_swap can swing it. Rank 0 holds the head element and the tail pointer and
 * broadcasts their addresses. A rank appends as in the Michael-Scott queue: read the tail,
 * link the new element into the tail element's next pointer (compare-and-swap nil -> new); if
 * another rank got there first, help it by moving the tail on and retry; once linked, move the
 * tail to the new element (compare-and-swap, which fails harmlessly if a helper did it).
 * All ranks append inside one MPI_Win_lock_all epoch; pointers are read with
 * MPI_Fetch_and_op(MPI_NO_OP), element values with MPI_Get.
 *
 *   mpiexec -n 4 ./linked_list [elements_per_rank]
 *
 * Checks, on every rank: walking the list from the head meets every element of every rank
 * exactly once, with its value, and each rank's elements in the order it appended them. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_name.h"

typedef struct {
  int64_t next; /* global pointer, see below */
  int64_t value;
} element_t;

/* A global pointer: (rank + 1) in the top 16 bits, the address in the low 48; 0 is nil. */
static const int64_t NIL = 0;
static const int ADDRESS_BITS = 48;

static void fail(const char* what, long long got, long long want) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "linked_list: rank %d: %s: got %lld, want %lld\n", rank, what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int64_t make_pointer(int rank, void* element) {
  MPI_Aint address;
  MPI_Get_address(element, &address);
  if (address < 0 || (uint64_t)address >> ADDRESS_BITS)
    fail("address does not fit in a global pointer", (long long)address, 0);
  return (int64_t)(rank + 1) << ADDRESS_BITS | (int64_t)address;
}
static int pointer_rank(int64_t p) {
  return (int)(p >> ADDRESS_BITS) - 1;
}
static MPI_Aint pointer_address(int64_t p) {
  return (MPI_Aint)(p & (((int64_t)1 << ADDRESS_BITS) - 1));
}

static int64_t read_word(MPI_Win win, int rank, MPI_Aint address) {
  int64_t value, unused = 0;
  MPI_Fetch_and_op(&unused, &value, MPI_INT64_T, rank, address, MPI_NO_OP, win);
  MPI_Win_flush(rank, win);
  return value;
}

static int64_t compare_and_swap(MPI_Win win, int rank, MPI_Aint address, int64_t expected,
                                int64_t desired) {
  int64_t found;
  MPI_Compare_and_swap(&desired, &expected, &found, MPI_INT64_T, rank, address, win);
  MPI_Win_flush(rank, win);
  return found;
}

/* The address of the next field of the element `p` points to. */
static MPI_Aint next_field(int64_t p) {
  return MPI_Aint_add(pointer_address(p), offsetof(element_t, next));
}

/* Links `element` (already attached, its pointer `me`) after the current tail; returns the
 * number of attempts it took. */
static int append(MPI_Win win, MPI_Aint tail_address, int64_t me) {
  for (int attempts = 1;; attempts++) {
    const int64_t tail = read_word(win, 0, tail_address);
    const int64_t next = compare_and_swap(win, pointer_rank(tail), next_field(tail), NIL, me);
    if (next == NIL) { /* linked: swing the tail on (someone may have done it for us) */
      compare_and_swap(win, 0, tail_address, tail, me);
      return attempts;
    }
    compare_and_swap(win, 0, tail_address, tail, next); /* help the rank that won */
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int per_rank = argc > 1 ? atoi(argv[1]) : 1000;
  if (per_rank < 1) fail("elements per rank", per_rank, 1);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  char engine[MPI_MAX_INFO_VAL + 1];
  engine_name(win, engine);

  /* Rank 0 owns the head element (a sentinel) and the tail pointer. */
  element_t* head = NULL;
  int64_t* tail = NULL;
  int64_t anchors[2] = {0, 0}; /* pointer to the head, address of the tail pointer */
  if (rank == 0) {
    head = malloc(sizeof *head);
    tail = malloc(sizeof *tail);
    head->next = NIL;
    head->value = -1;
    MPI_Win_attach(win, head, sizeof *head);
    MPI_Win_attach(win, tail, sizeof *tail);
    anchors[0] = make_pointer(0, head);
    *tail = anchors[0];
    MPI_Aint address;
    MPI_Get_address(tail, &address);
    anchors[1] = (int64_t)address;
  }
  MPI_Bcast(anchors, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
  const int64_t head_pointer = anchors[0];
  const MPI_Aint tail_address = (MPI_Aint)anchors[1];

  element_t** mine = malloc(sizeof(element_t*) * (size_t)per_rank);
  int64_t attempts = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < per_rank; i++) {
    element_t* e = malloc(sizeof *e);
    e->next = NIL;
    e->value = (int64_t)rank * per_rank + i;
    MPI_Win_attach(win, e, sizeof *e);
    MPI_Win_sync(win); /* the element's contents are visible before it is published */
    mine[i] = e;
    attempts += append(win, tail_address, make_pointer(rank, e));
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's appends are complete */

  /* Every rank walks the whole list. */
  const int64_t total = (int64_t)per_rank * size;
  char* seen = calloc((size_t)total, 1);
  int* last_index = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; r++)
    last_index[r] = -1;
  int64_t length = 0;
  MPI_Win_lock_all(0, win);
  for (int64_t at = read_word(win, 0, next_field(head_pointer)); at != NIL;) {
    const int owner = pointer_rank(at);
    if (owner < 0 || owner >= size) fail("pointer to rank", owner, 0);
    element_t e;
    MPI_Get(&e, 2, MPI_INT64_T, owner, pointer_address(at), 2, MPI_INT64_T, win);
    MPI_Win_flush(owner, win);
    if (e.value < 0 || e.value >= total) fail("element value", e.value, 0);
    if (e.value / per_rank != owner) fail("element value on its rank", e.value, owner);
    if (seen[e.value]) fail("element met twice", e.value, -1);
    const int index = (int)(e.value % per_rank);
    if (index != last_index[owner] + 1)
      fail("append order of a rank", index, last_index[owner] + 1);
    last_index[owner] = index;
    seen[e.value] = 1;
    if (++length > total) fail("list length", length, total);
    at = e.next;
  }
  MPI_Win_unlock_all(win);
  const double elapsed = MPI_Wtime() - t0;
  if (length != total) fail("list length", length, total);

  int64_t all_attempts = 0;
  MPI_Reduce(&attempts, &all_attempts, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "linked_list [%s]: %d ranks, %lld elements appended (%lld lost races), walked by "
        "every rank: %.4f s ok\n",
        engine, size, (long long)total, (long long)(all_attempts - total), slowest);

  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads my elements any more */
  for (int i = 0; i < per_rank; i++) {
    MPI_Win_detach(win, mine[i]);
    free(mine[i]);
  }
  if (rank == 0) {
    MPI_Win_detach(win, head);
    MPI_Win_detach(win, tail);
    free(head);
    free(tail);
  }
  MPI_Win_free(&win);
  free(mine);
  free(seen);
  free(last_index);
  MPI_Finalize();
  return 0;
}
