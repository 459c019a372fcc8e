/* Windows on subcommunicators, with MPI_COMM_WORLD traffic around them: ranks that belong to
 * no window (or to another window) run collectives, point-to-point and request waits with
 * ranks that just used one. Every window flavor, every epoch kind, disjoint windows alive at
 * the same time; every byte is checked. A hang here means osprey changed how calls match. */
#include "common.h"

enum { SLOT = 96 };

/* World traffic of every kind, each result checked. `round` varies the values. */
static void world_traffic(int round) {
  int v = t_rank + round, sum = 0;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == t_size * (t_size - 1) / 2 + t_size * round, "allreduce %d", sum);
  int b = t_rank == t_size - 1 ? 1000 + round : -1;
  MPI_OK(MPI_Bcast(&b, 1, MPI_INT, t_size - 1, MPI_COMM_WORLD));
  CHECK(b == 1000 + round, "bcast %d", b);
  int* all = (int*)malloc(sizeof(int) * (size_t)t_size);
  MPI_OK(MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < t_size; i++)
    CHECK(all[i] == i + round, "allgather [%d] %d", i, all[i]);
  int* out = (int*)malloc(sizeof(int) * (size_t)t_size);
  for (int i = 0; i < t_size; i++)
    out[i] = t_rank * 100 + i + round;
  MPI_OK(MPI_Alltoall(out, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < t_size; i++)
    CHECK(all[i] == i * 100 + t_rank + round, "alltoall [%d] %d", i, all[i]);
  int red = 0;
  MPI_OK(MPI_Reduce(&v, &red, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
  if (t_rank == 0) CHECK(red == t_size - 1 + round, "reduce %d", red);
  /* Point-to-point around a ring: blocking, nonblocking with waits, sendrecv. */
  const int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
  int got = -1;
  if (t_rank % 2 == 0) {
    MPI_OK(MPI_Send(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  } else {
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
  }
  CHECK(got == prev + round, "ring recv %d", got);
  MPI_Request rq[2];
  int g2 = -1;
  MPI_OK(MPI_Irecv(&g2, 1, MPI_INT, next, 8, MPI_COMM_WORLD, &rq[0]));
  MPI_OK(MPI_Isend(&v, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, &rq[1]));
  MPI_Status sts[2];
  MPI_OK(MPI_Waitall(2, rq, sts));
  CHECK(g2 == next + round, "reverse ring %d", g2);
  int g3 = -1;
  MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, next, 9, &g3, 1, MPI_INT, prev, 9, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
  CHECK(g3 == prev + round, "sendrecv %d", g3);
  MPI_Request ib;
  MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &ib));
  MPI_OK(MPI_Wait(&ib, MPI_STATUS_IGNORE));
  free(all);
  free(out);
}

/* One window on `comm`: a fence epoch of puts, a lock_all epoch of accumulates, a PSCW epoch
 * of gets, each checked at every target; world traffic between the epochs. */
static void window_epochs(enum t_flavor f, MPI_Comm comm, int tag) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  struct t_win w;
  if (!t_win_create(&w, f, (MPI_Aint)SLOT * n, 1, comm)) return;
  memset(w.base, 0, (size_t)SLOT * (size_t)n);
  MPI_OK(MPI_Barrier(comm));

  /* Fence: every rank puts its pattern into its slot at every rank. */
  unsigned char* src = (unsigned char*)malloc(SLOT * (size_t)n);
  for (int t = 0; t < n; t++)
    t_fill(src + SLOT * t, SLOT, me, t, tag);
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int t = 0; t < n; t++)
    MPI_OK(MPI_Put(src + SLOT * t, SLOT, MPI_BYTE, t, t_disp(&w, t, SLOT * me, 1), SLOT, MPI_BYTE,
                   w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int o = 0; o < n; o++)
    for (int i = 0; i < SLOT; i++)
      CHECK((unsigned char)w.base[SLOT * o + i] == t_pattern(o, me, (size_t)i, tag),
            "%s fence put: origin %d byte %d", t_flavor_names[f], o, i);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));

  /* Lock_all: every rank adds (rank + 1) to the first word of every target's window. */
  MPI_OK(MPI_Barrier(comm));
  int64_t* words = (int64_t*)w.base;
  if (me == 0) memset(words, 0, 8);
  MPI_OK(MPI_Barrier(comm));
  MPI_OK(MPI_Win_lock_all(0, w.win));
  const int64_t add = me + 1;
  for (int t = 0; t < n; t++)
    MPI_OK(MPI_Accumulate(&add, 1, MPI_INT64_T, t, t_disp(&w, t, 0, 1), 1, MPI_INT64_T, MPI_SUM,
                          w.win));
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_OK(MPI_Barrier(comm));
  if (me == 0)
    CHECK(words[0] == (int64_t)n * (n + 1) / 2, "lock_all sum %lld", (long long)words[0]);

  /* PSCW: each rank exposes to its predecessor, which gets the successor's slot of itself. */
  MPI_Group g, gnext, gprev;
  MPI_Comm_group(comm, &g);
  int next = (me + 1) % n, prev = (me + n - 1) % n;
  MPI_Group_incl(g, 1, &next, &gnext);
  MPI_Group_incl(g, 1, &prev, &gprev);
  unsigned char* back = (unsigned char*)malloc(SLOT);
  /* And a strided put (a derived datatype) into every other byte of the last 32 of the slot. */
  MPI_Datatype strided;
  MPI_Type_vector(16, 1, 2, MPI_BYTE, &strided);
  MPI_Type_commit(&strided);
  unsigned char marks[32];
  memset(marks, 0xA0 + me, sizeof marks);
  MPI_OK(MPI_Win_post(gprev, 0, w.win));
  MPI_OK(MPI_Win_start(gnext, 0, w.win));
  MPI_OK(MPI_Get(back, SLOT - 32, MPI_BYTE, next, t_disp(&w, next, SLOT * me + 0, 1), SLOT - 32,
                 MPI_BYTE, w.win));
  MPI_OK(MPI_Put(marks, 1, strided, next, t_disp(&w, next, SLOT * (me + 1) - 32, 1), 1, strided,
                 w.win));
  MPI_OK(MPI_Win_complete(w.win));
  MPI_OK(MPI_Win_wait(w.win));
  MPI_Type_free(&strided);
  for (int i = 8; i < SLOT - 32; i++) /* the first word holds the lock_all sum at rank 0 */
    CHECK(back[i] == t_pattern(me, next, (size_t)i, tag), "%s pscw get byte %d", t_flavor_names[f],
          i);
  for (int i = 0; i < 32; i++) /* prev's marks in every other byte of its slot here */
    CHECK((unsigned char)w.base[SLOT * (prev + 1) - 32 + i] ==
              (i % 2 == 0 ? 0xA0 + prev : t_pattern(prev, me, (size_t)(SLOT - 32 + i), tag)),
          "%s pscw strided put byte %d", t_flavor_names[f], i);
  MPI_Group_free(&g);
  MPI_Group_free(&gnext);
  MPI_Group_free(&gprev);
  free(back);
  free(src);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  /* Subcommunicators: the first two ranks, the even ranks, the odd ranks, everyone in
   * reverse order, and a dup of the world. */
  MPI_Comm subs[5];
  MPI_Comm_split(MPI_COMM_WORLD, t_rank < 2 ? 0 : MPI_UNDEFINED, t_rank, &subs[0]);
  MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2 == 0 ? 0 : MPI_UNDEFINED, t_rank, &subs[1]);
  MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2 == 1 ? 0 : MPI_UNDEFINED, t_rank, &subs[2]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &subs[3]);
  MPI_Comm_dup(MPI_COMM_WORLD, &subs[4]);
  int round = 0;
  for (int f = 0; f < T_NFLAVORS; f++) {
    for (int s = 0; s < 5; s++) {
      if (subs[s] != MPI_COMM_NULL) window_epochs((enum t_flavor)f, subs[s], round);
      world_traffic(round++);
    }
    /* Two disjoint windows alive at once (even and odd ranks), world traffic while they
     * exist and after one of them is gone. */
    struct t_win a;
    MPI_Comm mine = t_rank % 2 == 0 ? subs[1] : subs[2];
    int created = t_win_create(&a, (enum t_flavor)f, 64, 1, mine);
    world_traffic(round++);
    if (created) {
      int n;
      MPI_Comm_size(mine, &n);
      MPI_OK(MPI_Win_lock_all(0, a.win));
      int64_t one = 1, old = -1;
      for (int t = 0; t < n; t++)
        MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, t_disp(&a, t, 8, 1), MPI_NO_OP, a.win));
      MPI_OK(MPI_Win_unlock_all(a.win));
      t_win_free(&a);
    }
    world_traffic(round++);
  }
  for (int s = 0; s < 5; s++)
    if (subs[s] != MPI_COMM_NULL) MPI_Comm_free(&subs[s]);
  return t_finish("subcomm_windows");
}
