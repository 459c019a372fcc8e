/* A distributed hash table over one-sided communication, the pattern of RMA k-mer counters
 * and key-value stores: the table is split into equal slices, one per rank, in an
 * MPI_Win_allocate window, and any rank inserts into any slice without the owner's help.
 *
 * A slot is two 64-bit words, {key, value}; key 0 marks a free slot. To insert a key, a rank
 * hashes it to a global slot and claims the slot with MPI_Compare_and_swap (0 -> key). If
 * the slot holds another key it probes the next one (open addressing with linear probing;
 * the probe walks on into the next rank's slice). Then it adds its contribution to the
 * value with MPI_Fetch_and_op(MPI_SUM), and a claim also counts in the owner's "used"
 * counter (MPI_Fetch_and_op). Every rank inserts keys of its own and a set of keys that
 * every rank inserts (their value ends as the sum of all ranks' contributions), all ranks
 * at once inside one MPI_Win_lock_all epoch. Then every rank looks up its keys, the shared
 * ones and keys nobody inserted.
 *
 *   mpiexec -n 4 ./dht [keys_per_rank]
 *
 * Checks, on every rank: each lookup finds its key with the value it must have, absent keys
 * are absent, and each slice holds as many keys as its "used" counter says, which adds up
 * to the number of distinct keys (so no key sits in two slots). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_name.h"

enum { SHARED_KEYS = 64 };

/* Window layout of one slice, in 64-bit words: the "used" counter and a pad word, then slot s
 * at words 2s + 2 (key) and 2s + 3 (value). The pad keeps the size a multiple of 16 bytes:
 * MPICH 4.0.2's own RMA lands every operation 8 bytes low at a rank whose window starts 8
 * bytes off a 16-byte boundary, which is where the window of a rank after one whose size is an
 * odd multiple of 8 bytes starts. */
enum { USED = 0, FIRST_SLOT = 2 };
typedef struct {
  MPI_Win win;
  int ranks;
  int64_t slots_per_rank;
  int64_t* local;
} table_t;

static void fail(const char* what, long long got, long long want) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "dht: rank %d: %s: got %lld, want %lld\n", rank, what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint64_t mix(uint64_t x) { /* splitmix64 finalizer: spreads keys over the table */
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Keys are never 0: rank r's own key i is (r + 1) << 32 | (i + 1); shared key j is j + 1. */
static int64_t own_key(int rank, int64_t i) {
  return (int64_t)(rank + 1) << 32 | (i + 1);
}
static int64_t own_value(int64_t key) {
  return key % 1000003;
}
static int64_t shared_contribution(int rank, int j) {
  return (int64_t)(rank + 1) * (j + 1);
}

static void slot_location(const table_t* t, int64_t global, int* owner, MPI_Aint* disp) {
  *owner = (int)(global / t->slots_per_rank);
  *disp = (MPI_Aint)(FIRST_SLOT + 2 * (global % t->slots_per_rank));
}

/* Claims or finds the slot of `key`, adds `amount` to its value; returns the probes taken. */
static int64_t insert(table_t* t, int64_t key, int64_t amount) {
  const int64_t total = t->slots_per_rank * t->ranks;
  int64_t global = (int64_t)(mix((uint64_t)key) % (uint64_t)total);
  const int64_t zero = 0, one = 1;
  for (int64_t probes = 1; probes <= total; probes++) {
    int owner;
    MPI_Aint disp;
    slot_location(t, global, &owner, &disp);
    int64_t found;
    MPI_Compare_and_swap(&key, &zero, &found, MPI_INT64_T, owner, disp, t->win);
    MPI_Win_flush(owner, t->win);
    if (found == 0 || found == key) {
      int64_t old;
      MPI_Fetch_and_op(&amount, &old, MPI_INT64_T, owner, disp + 1, MPI_SUM, t->win);
      if (found == 0) /* this rank claimed the slot */
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, owner, USED, MPI_SUM, t->win);
      MPI_Win_flush(owner, t->win);
      return probes;
    }
    global = (global + 1) % total;
  }
  fail("table full, probes", total, 0);
  return 0;
}

/* Returns 1 and the value if `key` is in the table, 0 if a free slot ends its probe chain. */
static int lookup(table_t* t, int64_t key, int64_t* value) {
  const int64_t total = t->slots_per_rank * t->ranks;
  int64_t global = (int64_t)(mix((uint64_t)key) % (uint64_t)total);
  for (int64_t probes = 1; probes <= total; probes++) {
    int owner;
    MPI_Aint disp;
    slot_location(t, global, &owner, &disp);
    int64_t slot[2];
    MPI_Get(slot, 2, MPI_INT64_T, owner, disp, 2, MPI_INT64_T, t->win);
    MPI_Win_flush(owner, t->win);
    if (slot[0] == key) {
      *value = slot[1];
      return 1;
    }
    if (slot[0] == 0) return 0;
    global = (global + 1) % total;
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int64_t keys_per_rank = argc > 1 ? atol(argv[1]) : 1000;
  if (keys_per_rank < 1 || keys_per_rank >= (1 << 30)) fail("keys per rank", keys_per_rank, 1);

  /* About 60 % of the slots end up used: probe chains are short but not trivial, and they
   * cross from one rank's slice into the next. */
  table_t t = {.ranks = size};
  const int64_t distinct = keys_per_rank * size + SHARED_KEYS;
  t.slots_per_rank = (distinct * 5 / 3 + size - 1) / size;
  const int64_t words = FIRST_SLOT + 2 * t.slots_per_rank;
  MPI_Win_allocate((MPI_Aint)sizeof(int64_t) * words, sizeof(int64_t), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &t.local, &t.win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, t.win); /* local stores into the window */
  for (int64_t w = 0; w < words; w++)
    t.local[w] = 0;
  MPI_Win_unlock(rank, t.win);
  char engine[MPI_MAX_INFO_VAL + 1];
  engine_name(t.win, engine);
  MPI_Barrier(MPI_COMM_WORLD);

  const double t0 = MPI_Wtime();
  MPI_Win_lock_all(0, t.win);
  /* Interleave own and shared keys so that ranks race for the shared ones mid-run. */
  int64_t probes = 0;
  const int64_t every = keys_per_rank / SHARED_KEYS + 1;
  int next_shared = 0;
  for (int64_t i = 0; i < keys_per_rank; i++) {
    const int64_t key = own_key(rank, i);
    probes += insert(&t, key, own_value(key));
    if (i % every == 0 && next_shared < SHARED_KEYS) {
      const int j = (next_shared++ + rank * 7) % SHARED_KEYS; /* ranks start apart */
      probes += insert(&t, j + 1, shared_contribution(rank, j));
    }
  }
  for (; next_shared < SHARED_KEYS; next_shared++) {
    const int j = (next_shared + rank * 7) % SHARED_KEYS;
    probes += insert(&t, j + 1, shared_contribution(rank, j));
  }
  MPI_Win_unlock_all(t.win);
  MPI_Barrier(MPI_COMM_WORLD); /* every insert is complete everywhere */

  MPI_Win_lock_all(0, t.win);
  for (int64_t i = 0; i < keys_per_rank; i++) {
    const int64_t key = own_key(rank, i);
    int64_t value = -1;
    if (!lookup(&t, key, &value)) fail("own key not found", key, key);
    if (value != own_value(key)) fail("value of own key", value, own_value(key));
  }
  for (int j = 0; j < SHARED_KEYS; j++) {
    int64_t value = -1, want = 0;
    for (int r = 0; r < size; r++)
      want += shared_contribution(r, j);
    if (!lookup(&t, j + 1, &value)) fail("shared key not found", j + 1, j + 1);
    if (value != want) fail("value of shared key", value, want);
  }
  for (int64_t i = 0; i < 100; i++) { /* keys of a rank that does not exist */
    int64_t value;
    if (lookup(&t, own_key(size, i), &value)) fail("absent key found", own_key(size, i), 0);
  }
  MPI_Win_unlock_all(t.win);
  const double elapsed = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);

  /* Each owner counts the keys in its slice (its own memory: lock itself to read it). */
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, t.win);
  int64_t used = 0;
  for (int64_t s = 0; s < t.slots_per_rank; s++)
    used += t.local[FIRST_SLOT + 2 * s] != 0;
  const int64_t counted = t.local[USED];
  MPI_Win_unlock(rank, t.win);
  if (used != counted) fail("keys in my slice against its counter", used, counted);
  int64_t all_used = 0, all_probes = 0;
  MPI_Allreduce(&used, &all_used, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&probes, &all_probes, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (all_used != distinct) fail("keys in the table", all_used, distinct);

  if (rank == 0)
    printf(
        "dht [%s]: %d ranks, %lld keys (%d inserted by every rank), %.2f probes per insert: "
        "%.4f s ok\n",
        engine, size, (long long)distinct, SHARED_KEYS,
        (double)all_probes / (double)(keys_per_rank * size + SHARED_KEYS * size), slowest);
  MPI_Win_free(&t.win);
  MPI_Finalize();
  return 0;
}
