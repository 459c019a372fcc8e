/* A lock the program builds itself: a queue lock (MCS) from MPI_Fetch_and_op,
 * MPI_Compare_and_swap and MPI_Accumulate under one lock_all, each followed by a flush, as
 * runtimes and applications write their own mutexes over RMA. A waiter polls its own word with
 * fetch_and_op + flush; the holder increments a counter on rank 0 with get + put. Every rank
 * acquires and releases in turn, so each acquisition is a hand-over between two ranks; with
 * more ranks than cores it measures whether a rank polling in its own loop lets the next owner
 * have a CPU.
 *
 *   lock_handover [-f allocate|create|dynamic] [-t ms per repetition (20)] [-r repetitions (5)]
 *
 * Prints "BENCH lock_handover_<flavor> <ranks> <microseconds per acquisition>" (median over
 * repetitions; the time until every rank has made its acquisitions, over all of them), after
 * checking that the counter saw every acquisition exactly once. */
#include <stdint.h>

#include "bench_common.h"

/* Words of each rank's window: the queue's tail (rank 0's only), this rank's successor, its
 * wait flag, the counter, the ranks that began and that ended a timed run (rank 0's only). */
enum { TAIL, NEXT, LOCKED, COUNTER, BEGUN, ENDED, NWORDS };

struct mcs {
  MPI_Win win;
  int64_t* mem;
  MPI_Aint* base; /* each rank's displacement of word 0 */
  int rank, size, du;
  long acquired, runs;
};

static MPI_Aint at(const struct mcs* m, int rank, int word) {
  return m->base[rank] + word * (MPI_Aint)sizeof(int64_t) / m->du;
}

static int64_t read_word(struct mcs* m, int rank, int word) {
  int64_t v, none = 0;
  MPI_Fetch_and_op(&none, &v, MPI_INT64_T, rank, at(m, rank, word), MPI_NO_OP, m->win);
  MPI_Win_flush(rank, m->win);
  return v;
}

static void write_word(struct mcs* m, int rank, int word, int64_t v) {
  MPI_Accumulate(&v, 1, MPI_INT64_T, rank, at(m, rank, word), 1, MPI_INT64_T, MPI_REPLACE, m->win);
  MPI_Win_flush(rank, m->win);
}

static void acquire(struct mcs* m) {
  write_word(m, m->rank, NEXT, -1);
  write_word(m, m->rank, LOCKED, 1);
  int64_t me = m->rank, pred;
  MPI_Fetch_and_op(&me, &pred, MPI_INT64_T, 0, at(m, 0, TAIL), MPI_REPLACE, m->win);
  MPI_Win_flush(0, m->win);
  if (pred == -1) return;
  write_word(m, (int)pred, NEXT, me);
  while (read_word(m, m->rank, LOCKED) != 0) {
  }
}

static void release(struct mcs* m) {
  int64_t me = m->rank, nobody = -1, old, next;
  MPI_Compare_and_swap(&nobody, &me, &old, MPI_INT64_T, 0, at(m, 0, TAIL), m->win);
  MPI_Win_flush(0, m->win);
  if (old == me) return;
  while ((next = read_word(m, m->rank, NEXT)) == -1) {
  }
  write_word(m, (int)next, LOCKED, 0);
}

/* Counts this rank in on rank 0's `word` and polls it until every rank of this run has:
 * a barrier built from the same RMA calls as the lock. */
static void meet(struct mcs* m, int word) {
  const int64_t one = 1, all = (int64_t)m->size * m->runs;
  int64_t old;
  MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, at(m, 0, word), MPI_SUM, m->win);
  MPI_Win_flush(0, m->win);
  while (old + 1 < all && read_word(m, 0, word) < all) {
  }
}

/* No rank starts a run before rank 0 has counted itself in (its clock already running), and
 * rank 0 ends it only once every rank's acquisitions are done, every rank polling RMA
 * meanwhile: so rank 0's clock holds every rank's work, and the engine under test does the
 * waiting at both ends. After a barrier alone a rank can start a time slice before rank 0 leaves
 * it (Open MPI's ranks did, and rank 0 then timed little more than its own acquisitions: 0.07 us
 * a hand-over), and a rank that finished and waits in one of the host's collectives hands its
 * CPU on or not by the host's rules (MPICH's busy-poll). bench_time calls every rank's body
 * equally often, which the counts rely on. */
static void iterations(void* ctx, long iters) {
  struct mcs* m = ctx;
  ++m->runs;
  meet(m, BEGUN);
  for (long i = 0; i < iters; i++) {
    acquire(m);
    int64_t c;
    MPI_Get(&c, 1, MPI_INT64_T, 0, at(m, 0, COUNTER), 1, MPI_INT64_T, m->win);
    MPI_Win_flush(0, m->win);
    c++;
    MPI_Put(&c, 1, MPI_INT64_T, 0, at(m, 0, COUNTER), 1, MPI_INT64_T, m->win);
    MPI_Win_flush(0, m->win);
    release(m);
  }
  meet(m, ENDED);
  m->acquired += iters;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* flavor = "allocate";
  double seconds = 20e-3;
  int reps = 5;
  const struct bench_option opts[] = {
      {"-f", 's', &flavor}, {"-t", 'm', &seconds}, {"-r", 'i', &reps}};
  struct mcs m = {0};
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  m.size = size;
  const MPI_Aint bytes = NWORDS * sizeof(int64_t);
  m.base = calloc((size_t)size, sizeof(MPI_Aint));
  m.du = sizeof(int64_t);
  int bad = bench_options(argc, argv, opts, 3) || reps < 1 || seconds <= 0 || size < 2;
  if (!bad && !strcmp(flavor, "allocate")) {
    MPI_Win_allocate(bytes, m.du, MPI_INFO_NULL, MPI_COMM_WORLD, &m.mem, &m.win);
  } else if (!bad && !strcmp(flavor, "create")) {
    m.mem = malloc((size_t)bytes);
    MPI_Win_create(m.mem, bytes, m.du, MPI_INFO_NULL, MPI_COMM_WORLD, &m.win);
  } else if (!bad && !strcmp(flavor, "dynamic")) {
    m.mem = malloc((size_t)bytes);
    m.du = 1;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &m.win);
    MPI_Win_attach(m.win, m.mem, bytes);
    MPI_Aint mine;
    MPI_Get_address(m.mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, m.base, 1, MPI_AINT, MPI_COMM_WORLD);
  } else {
    if (m.rank == 0)
      fprintf(stderr,
              "usage: lock_handover [-f allocate|create|dynamic] [-t ms] [-r reps] "
              "(2+ ranks)\n");
    free(m.base);
    MPI_Finalize();
    return 2;
  }
  for (int i = 0; i < NWORDS; i++)
    m.mem[i] = 0;
  m.mem[TAIL] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, m.win);
  iterations(&m, 20); /* warm-up: first contacts, lazily set-up paths */
  const double t = bench_time(iterations, &m, seconds, reps, 1000000);
  MPI_Win_unlock_all(m.win);
  long total = 0;
  MPI_Reduce(&m.acquired, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = 0;
  if (m.rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, m.win);
    if (m.mem[COUNTER] != total) {
      fprintf(stderr, "lock_handover: counter %lld after %ld acquisitions\n",
              (long long)m.mem[COUNTER], total);
      rc = 1;
    }
    MPI_Win_unlock(0, m.win);
    /* One iteration is an acquisition by every rank. */
    printf("BENCH lock_handover_%s %d %.4f\nENGINE %s\n", flavor, size, t * 1e6 / size,
           bench_engine(m.win));
  }
  if (m.du == 1) MPI_Win_detach(m.win, m.mem);
  MPI_Win_free(&m.win);
  if (strcmp(flavor, "allocate")) free(m.mem);
  free(m.base);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
