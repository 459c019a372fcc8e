/* Data an origin reads belongs to the epoch it read it in, however large (on the message path
 * large replies travel by rendezvous, straight from window memory):
 * - PSCW: every rank gets 100,000 ints (and puts one) from its right neighbour; after
 *   MPI_Win_wait each target rewrites its window at once. The origin must see the values of
 *   its epoch only.
 * - Passive target: rank 0 reads rank t's whole window under shared locks while another rank
 *   (or t itself) rewrites it under exclusive locks, one value per epoch. A read mixing two
 *   values saw memory outside its epoch.
 * - Dynamic windows: memory attached just before a fence with MPI_MODE_NOPRECEDE may be read
 *   by a get right after it (the addresses were exchanged before attaching). */
#include "common.h"

enum { N = 100000, ROUNDS = 30, PASSIVE = 60 };

static void pscw(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, (N + 1) * sizeof(int), sizeof(int), MPI_COMM_WORLD)) return;
  const int du = f == T_DYNAMIC ? 1 : (int)sizeof(int);
  int* mine = (int*)w.base;
  int* got = malloc(sizeof(int) * N);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  MPI_Group world, gl, gr;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &gl);
  MPI_Group_incl(world, 1, &right, &gr);
  for (int i = 0; i <= N; i++)
    mine[i] = t_rank * 1000000;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int round = 0; round < ROUNDS; round++) {
    MPI_OK(MPI_Win_post(gl, 0, w.win));
    MPI_OK(MPI_Win_start(gr, 0, w.win));
    const int one = round;
    MPI_OK(MPI_Get(got, N, MPI_INT, right, t_disp(&w, right, 0, du), N, MPI_INT, w.win));
    MPI_OK(MPI_Put(&one, 1, MPI_INT, right, t_disp(&w, right, N * sizeof(int), du), 1, MPI_INT,
                   w.win));
    MPI_OK(MPI_Win_complete(w.win));
    MPI_OK(MPI_Win_wait(w.win));
    /* The exposure epoch is over: the window is this rank's again. */
    CHECK(mine[N] == round, "%s round %d: put word %d", t_flavor_names[f], round, mine[N]);
    for (int i = 0; i < N; i++)
      mine[i] = t_rank * 1000000 + round + 1;
    for (int i = 0; i < N; i++)
      CHECK(got[i] == right * 1000000 + round, "%s round %d: word %d is %d, want %d",
            t_flavor_names[f], round, i, got[i], right * 1000000 + round);
  }
  MPI_Group_free(&world);
  MPI_Group_free(&gl);
  MPI_Group_free(&gr);
  free(got);
  t_win_free(&w);
}

static void passive(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, N * sizeof(int), sizeof(int), MPI_COMM_WORLD)) return;
  const int du = f == T_DYNAMIC ? 1 : (int)sizeof(int);
  const int target = 1, writer = t_size > 2 ? 2 : 1;
  int* mine = (int*)w.base;
  memset(mine, 0, N * sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    int* got = malloc(sizeof(int) * N);
    for (int k = 0; k < PASSIVE; k++) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win));
      MPI_OK(MPI_Get(got, N, MPI_INT, target, t_disp(&w, target, 0, du), N, MPI_INT, w.win));
      MPI_OK(MPI_Win_unlock(target, w.win));
      for (int i = 1; i < N; i++)
        CHECK(got[i] == got[0], "%s read %d: word %d is %d, word 0 is %d (two epochs mixed)",
              t_flavor_names[f], k, i, got[i], got[0]);
    }
    free(got);
  } else if (t_rank == writer) {
    int* v = malloc(sizeof(int) * N);
    for (int k = 1; k <= PASSIVE; k++) {
      for (int i = 0; i < N; i++)
        v[i] = k;
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w.win));
      if (writer == target)
        memcpy(mine, v, N * sizeof(int));
      else
        MPI_OK(MPI_Put(v, N, MPI_INT, target, t_disp(&w, target, 0, du), N, MPI_INT, w.win));
      MPI_OK(MPI_Win_unlock(target, w.win));
    }
    free(v);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t_win_free(&w);
}

static void attach_then_fence(void) {
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  const int right = (t_rank + 1) % t_size;
  for (int round = 0; round < ROUNDS; round++) {
    int64_t* region = malloc(64 * sizeof(int64_t));
    for (int i = 0; i < 64; i++)
      region[i] = t_rank * 1000 + round * 64 + i;
    MPI_Aint mine, theirs[64];
    MPI_Get_address(region, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, theirs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_OK(MPI_Win_attach(win, region, 64 * sizeof(int64_t)));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int64_t got[64];
    MPI_OK(MPI_Get(got, 64, MPI_INT64_T, right, theirs[right], 64, MPI_INT64_T, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < 64; i++)
      CHECK(got[i] == right * 1000 + round * 64 + i, "round %d: word %d is %lld", round, i,
            (long long)got[i]);
    MPI_OK(MPI_Win_detach(win, region));
    MPI_Barrier(MPI_COMM_WORLD);
    free(region);
  }
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    pscw((enum t_flavor)f);
    passive((enum t_flavor)f);
  }
  attach_then_fence();
  return t_finish("epoch_data");
}
