/* MPI_Win_allocate_shared: contiguous layout by default, alloc_shared_noncontig honoured,
 * MPI_Win_shared_query for every rank and MPI_PROC_NULL (a rank that allocated nothing has a
 * NULL base, as MPICH answers), and direct load/store into the neighbours' memory
 * synchronized by fence. The window lives on the ranks that share this rank's node; on a
 * communicator that spans nodes the call must fail with MPI_ERR_RMA_SHARED. */
#include "common.h"

/* Node rank 1 allocates nothing; the others (r % 3) * 24 + 8 ints. */
static int ints_of(int r) {
  return r == 1 ? 0 : (r % 3) * 24 + 8;
}

static void run(MPI_Comm comm, int noncontig) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
  }
  const int mine_n = ints_of(me);
  int* mine;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate_shared((MPI_Aint)mine_n * (MPI_Aint)sizeof(int), sizeof(int), info, comm,
                                 &mine, &win));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);

  int** ptr = malloc(sizeof(int*) * (size_t)n);
  MPI_Aint* sz = malloc(sizeof(MPI_Aint) * (size_t)n);
  for (int r = 0; r < n; r++) {
    int du = 0;
    MPI_OK(MPI_Win_shared_query(win, r, &sz[r], &du, &ptr[r]));
    CHECK(sz[r] == ints_of(r) * (MPI_Aint)sizeof(int), "size of rank %d: %ld", r, (long)sz[r]);
    CHECK(du == (int)sizeof(int), "disp unit %d", du);
    if (sz[r] == 0)
      CHECK(ptr[r] == NULL, "rank %d allocated nothing but its base is %p", r, ptr[r]);
    if (r == me && sz[r] > 0) CHECK(ptr[r] == mine, "own base differs");
  }
  /* Contiguous by default: each nonempty segment starts where the previous nonempty one ends. */
  int* end = NULL;
  for (int r = 0; r < n; r++) {
    if (sz[r] == 0) continue;
    if (!noncontig && end) CHECK(ptr[r] == end, "rank %d not contiguous", r);
    if (noncontig) CHECK(((uintptr_t)ptr[r] % 4096) == 0, "noncontig segment of %d unaligned", r);
    end = ptr[r] + ints_of(r);
  }
  {
    MPI_Aint s;
    int du;
    int* p;
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &s, &du, &p));
    CHECK(s == sz[0] && p == ptr[0], "MPI_PROC_NULL query should give rank 0's segment");
  }

  /* Every rank stores into its right neighbour's segment directly. */
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int round = 0; round < 50; round++) {
    MPI_OK(MPI_Win_fence(0, win));
    const int k = (int)(sz[right] / (MPI_Aint)sizeof(int));
    for (int i = 0; i < k; i++)
      ptr[right][i] = round * 100000 + me * 1000 + i;
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < mine_n; i++)
      CHECK(mine[i] == round * 100000 + left * 1000 + i, "round %d: word %d is %d", round, i,
            mine[i]);
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  MPI_OK(MPI_Win_free(&win));
  free(ptr);
  free(sz);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Comm node = t_node_comm(MPI_COMM_WORLD);
  run(node, 0);
  run(node, 1);
  MPI_Comm_free(&node);
  if (!t_one_node(MPI_COMM_WORLD)) {
    struct t_win w;
    CHECK(!t_win_create(&w, T_SHARED, 64, 1, MPI_COMM_WORLD), "a shared window spanning nodes");
  }
  return t_finish("shared_query");
}
