/* Work stealing over one-sided communication, the pattern of task-parallel runtimes and
 * dynamic load balancers: every rank starts with a queue of tasks in its window, works
 * through it from one end, and when it runs dry steals half of what is left in another
 * rank's queue (up to 16 tasks), from the other end, without that rank's help.
 *
 * A queue is an array of task ids and one 64-bit word holding both its ends, {head, tail}:
 * the owner takes task tail - 1, a thief takes [head, head + k). Both claim by swapping the
 * word with MPI_Compare_and_swap (read first with MPI_Fetch_and_op(MPI_NO_OP)); a claim that
 * loses a race rereads and retries, so a task is claimed by exactly one rank. The thief reads
 * the stolen ids with MPI_Get. Whoever runs task t marks it in t's owner's done counters with
 * MPI_Fetch_and_op(MPI_SUM) and checks the old count was 0. Task costs grow with the owner's
 * rank, so higher ranks have more work and lower ranks steal from them. A rank stops when its
 * queue is empty and a sweep over all the others finds nothing to steal (tasks are never
 * added, so nothing can appear later). All of it runs in one MPI_Win_lock_all epoch.
 *
 *   mpiexec -n 4 ./work_steal [tasks_per_rank]
 *
 * Checks, on every rank: each done counter of its tasks is exactly 1; then rank 0 checks that
 * the number of tasks run, the sum of their ids and the sum of their results (MPI_Reduce)
 * are what every task run once gives. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_name.h"

/* Window layout, in 64-bit words: the ends word and a pad word (the size stays a multiple of
 * 16 bytes; see dht.c for the MPICH 4.0.2 issue it avoids), then the task ids, then one done
 * counter per task. */
enum { ENDS = 0, FIRST_TASK = 2 };

/* A bound on one steal: thieves come back often, so they race with the owner and each other. */
enum { STEAL_AT_MOST = 16 };

typedef struct {
  MPI_Win win;
  int64_t* local;
  int64_t per_rank;
} queues_t;

static void fail(const char* what, long long got, long long want) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "work_steal: rank %d: %s: got %lld, want %lld\n", rank, what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int64_t pack(int64_t head, int64_t tail) {
  return head << 32 | tail;
}
static int64_t head_of(int64_t ends) {
  return ends >> 32;
}
static int64_t tail_of(int64_t ends) {
  return ends & 0xFFFFFFFF;
}

/* Task ids are global: rank r's tasks are r * per_rank .. (r + 1) * per_rank - 1. */
static int owner_of(const queues_t* q, int64_t task) {
  return (int)(task / q->per_rank);
}
static int64_t cost_of(const queues_t* q, int64_t task) {
  return 100 * (owner_of(q, task) + 1);
}

/* The "work": a chain of multiply-xorshift steps as long as the task's cost. */
static uint64_t run_task(const queues_t* q, int64_t task) {
  uint64_t x = (uint64_t)task + 1;
  for (int64_t i = 0; i < cost_of(q, task); i++) {
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
  }
  return x;
}

typedef struct {
  int64_t tasks, id_sum, steals, stolen, lost_races;
  uint64_t result_sum;
} tally_t;

static void execute(queues_t* q, int64_t task, tally_t* tally) {
  tally->result_sum += run_task(q, task);
  tally->tasks++;
  tally->id_sum += task;
  const int owner = owner_of(q, task);
  const int64_t one = 1;
  int64_t before;
  MPI_Fetch_and_op(&one, &before, MPI_INT64_T, owner, FIRST_TASK + q->per_rank + task % q->per_rank,
                   MPI_SUM, q->win);
  MPI_Win_flush(owner, q->win);
  if (before != 0) fail("times task already run", before, 0);
}

static int64_t read_ends(queues_t* q, int rank) {
  int64_t ends, unused = 0;
  MPI_Fetch_and_op(&unused, &ends, MPI_INT64_T, rank, ENDS, MPI_NO_OP, q->win);
  MPI_Win_flush(rank, q->win);
  return ends;
}

/* Swaps rank's ends word from `seen` to `wanted`; returns 1 if nobody changed it meanwhile. */
static int claim(queues_t* q, int rank, int64_t seen, int64_t wanted) {
  int64_t found;
  MPI_Compare_and_swap(&wanted, &seen, &found, MPI_INT64_T, rank, ENDS, q->win);
  MPI_Win_flush(rank, q->win);
  return found == seen;
}

/* Takes the task at the tail of my own queue; returns -1 if it is empty. */
static int64_t pop_own(queues_t* q, int me, tally_t* tally) {
  for (;;) {
    const int64_t ends = read_ends(q, me);
    const int64_t head = head_of(ends), tail = tail_of(ends);
    if (head >= tail) return -1;
    if (claim(q, me, ends, pack(head, tail - 1))) return q->local[FIRST_TASK + tail - 1];
    tally->lost_races++;
  }
}

/* Steals the older half of victim's queue (at most STEAL_AT_MOST tasks) and runs it; returns
 * the number of tasks stolen. */
static int64_t steal_from(queues_t* q, int victim, tally_t* tally) {
  for (;;) {
    const int64_t ends = read_ends(q, victim);
    const int64_t head = head_of(ends), tail = tail_of(ends);
    if (head >= tail) return 0;
    int64_t k = (tail - head + 1) / 2;
    if (k > STEAL_AT_MOST) k = STEAL_AT_MOST;
    if (!claim(q, victim, ends, pack(head + k, tail))) {
      tally->lost_races++;
      continue;
    }
    int64_t* ids = malloc(sizeof(int64_t) * (size_t)k);
    MPI_Get(ids, (int)k, MPI_INT64_T, victim, FIRST_TASK + head, (int)k, MPI_INT64_T, q->win);
    MPI_Win_flush(victim, q->win);
    for (int64_t i = 0; i < k; i++)
      execute(q, ids[i], tally);
    free(ids);
    tally->steals++;
    tally->stolen += k;
    return k;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  queues_t q = {.per_rank = argc > 1 ? atol(argv[1]) : 10000};
  if (q.per_rank < 1 || q.per_rank > INT32_MAX / 2) fail("tasks per rank", q.per_rank, 1);

  const int64_t words = FIRST_TASK + 2 * q.per_rank;
  MPI_Win_allocate((MPI_Aint)sizeof(int64_t) * words, sizeof(int64_t), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &q.local, &q.win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, q.win); /* local stores into the window */
  q.local[ENDS] = pack(0, q.per_rank);
  q.local[1] = 0;
  for (int64_t i = 0; i < q.per_rank; i++) {
    q.local[FIRST_TASK + i] = rank * q.per_rank + i;
    q.local[FIRST_TASK + q.per_rank + i] = 0;
  }
  MPI_Win_unlock(rank, q.win);
  char engine[MPI_MAX_INFO_VAL + 1];
  engine_name(q.win, engine);
  MPI_Barrier(MPI_COMM_WORLD);

  tally_t tally = {0};
  uint64_t seed = 0x2545F4914F6CDD1Dull * (uint64_t)(rank + 1);
  const double t0 = MPI_Wtime();
  MPI_Win_lock_all(0, q.win);
  for (;;) {
    int64_t task;
    while ((task = pop_own(&q, rank, &tally)) >= 0)
      execute(&q, task, &tally);
    /* Out of work: try the others, starting at a random one, until a whole sweep is empty. */
    int64_t stolen = 0;
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    const int first = (int)(seed % (uint64_t)size);
    for (int i = 0; i < size && stolen == 0; i++) {
      const int victim = (first + i) % size;
      if (victim != rank) stolen = steal_from(&q, victim, &tally);
    }
    if (stolen == 0) break;
  }
  MPI_Win_unlock_all(q.win);
  const double elapsed = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD); /* every task has run */

  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, q.win);
  for (int64_t i = 0; i < q.per_rank; i++)
    if (q.local[FIRST_TASK + q.per_rank + i] != 1)
      fail("times my task was run", q.local[FIRST_TASK + q.per_rank + i], 1);
  MPI_Win_unlock(rank, q.win);

  /* Every task once: the count, the sum of ids, and the sum of results (computed here anew). */
  int64_t mine[5] = {tally.tasks, tally.id_sum, tally.steals, tally.stolen, tally.lost_races};
  int64_t all[5];
  uint64_t result_sum = 0, expected_sum = 0;
  MPI_Reduce(mine, all, 5, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&tally.result_sum, &result_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const int64_t total = q.per_rank * size;
    for (int64_t t = 0; t < total; t++)
      expected_sum += run_task(&q, t);
    if (all[0] != total) fail("tasks run", all[0], total);
    if (all[1] != total * (total - 1) / 2) fail("sum of task ids", all[1], total * (total - 1) / 2);
    if (result_sum != expected_sum)
      fail("sum of results", (long long)result_sum, (long long)expected_sum);
    printf(
        "work_steal [%s]: %d ranks, %lld tasks, %lld stolen in %lld steals (%lld lost races): "
        "%.4f s ok\n",
        engine, size, (long long)total, (long long)all[3], (long long)all[2], (long long)all[4],
        slowest);
  }
  MPI_Win_free(&q.win);
  MPI_Finalize();
  return 0;
}
