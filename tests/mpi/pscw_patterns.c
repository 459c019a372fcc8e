/* PSCW patterns: one origin to many targets, many origins to one target, MPI_Win_test
 * polling, MPI_MODE_NOCHECK, empty groups, and PSCW then fence then lock epochs on one
 * window; every flavor, every value checked. */
#include "common.h"

enum { ROUNDS = 60 };

static MPI_Group world;

static MPI_Group group_of(const int* ranks, int n) {
  MPI_Group g;
  MPI_Group_incl(world, n, ranks, &g);
  return g;
}

static void run(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, (t_size + 2) * sizeof(int64_t), 8, MPI_COMM_WORLD)) return;
  int64_t* mine = (int64_t*)w.base;
  memset(mine, 0, (size_t)(t_size + 2) * sizeof(int64_t));
  MPI_Barrier(MPI_COMM_WORLD);
  const int du = f == T_DYNAMIC ? 1 : 8;
  int* others = malloc(sizeof(int) * (size_t)t_size);
  int nothers = 0;
  for (int r = 1; r < t_size; r++)
    others[nothers++] = r;
  const int zero = 0;
  MPI_Group g_others = group_of(others, nothers), g_zero = group_of(&zero, 1);
  MPI_Group g_all = group_of(others, 0); /* empty, replaced below */
  MPI_Group_free(&g_all);
  MPI_Comm_group(MPI_COMM_WORLD, &g_all);

  for (int round = 0; round < ROUNDS; round++) {
    /* One origin (rank 0) to many targets. */
    if (t_rank == 0) {
      /* Origin buffers stay untouched until the epoch completes: one value per target. */
      int64_t* v = malloc(sizeof(int64_t) * (size_t)t_size);
      MPI_OK(MPI_Win_start(g_others, 0, w.win));
      for (int t = 1; t < t_size; t++) {
        v[t] = round * 100 + t;
        MPI_OK(MPI_Put(&v[t], 1, MPI_INT64_T, t, t_disp(&w, t, 0, du), 1, MPI_INT64_T, w.win));
      }
      MPI_OK(MPI_Win_complete(w.win));
      free(v);
    } else {
      MPI_OK(MPI_Win_post(g_zero, 0, w.win));
      /* Poll with MPI_Win_test. */
      int done = 0;
      while (!done)
        MPI_OK(MPI_Win_test(w.win, &done));
      CHECK(mine[0] == round * 100 + t_rank, "%s round %d: one-to-many got %lld", t_flavor_names[f],
            round, (long long)mine[0]);
    }
    /* Many origins to one target (rank 0), each into its own word. */
    if (t_rank == 0) {
      MPI_OK(MPI_Win_post(g_others, 0, w.win));
      MPI_OK(MPI_Win_wait(w.win));
      for (int o = 1; o < t_size; o++)
        CHECK(mine[1 + o] == round * 1000 + o, "%s round %d: from %d got %lld", t_flavor_names[f],
              round, o, (long long)mine[1 + o]);
    } else {
      MPI_OK(MPI_Win_start(g_zero, 0, w.win));
      int64_t v = round * 1000 + t_rank;
      MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, t_disp(&w, 0, (1 + t_rank) * 8, du), 1, MPI_INT64_T,
                     w.win));
      MPI_OK(MPI_Win_complete(w.win));
    }
    /* Empty groups: nothing to wait for, nothing to complete. */
    MPI_OK(MPI_Win_post(MPI_GROUP_EMPTY, 0, w.win));
    MPI_OK(MPI_Win_start(MPI_GROUP_EMPTY, 0, w.win));
    MPI_OK(MPI_Win_complete(w.win));
    MPI_OK(MPI_Win_wait(w.win));
  }

  /* MPI_MODE_NOCHECK: every post is known to be done (barrier) before the starts. */
  const int64_t one = 1; /* origin buffer of the accumulates: lives past each epoch */
  for (int round = 0; round < ROUNDS; round++) {
    MPI_OK(MPI_Win_post(g_all, MPI_MODE_NOCHECK, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_start(g_all, MPI_MODE_NOCHECK, w.win));
    for (int t = 0; t < t_size; t++) {
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, t_disp(&w, t, (t_size + 1) * 8, du), 1,
                            MPI_INT64_T, MPI_SUM, w.win));
    }
    MPI_OK(MPI_Win_complete(w.win));
    MPI_OK(MPI_Win_wait(w.win));
    CHECK(mine[t_size + 1] == (int64_t)(round + 1) * t_size, "%s NOCHECK round %d: %lld",
          t_flavor_names[f], round, (long long)mine[t_size + 1]);
  }

  /* PSCW, then fence, then lock epochs on the same window. */
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  MPI_Group gl = group_of(&left, 1), gr = group_of(&right, 1);
  for (int round = 0; round < 20; round++) {
    int64_t v = round * 3;
    MPI_OK(MPI_Win_post(gl, 0, w.win));
    MPI_OK(MPI_Win_start(gr, 0, w.win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, right, t_disp(&w, right, 0, du), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_complete(w.win));
    MPI_OK(MPI_Win_wait(w.win));
    CHECK(mine[0] == round * 3, "%s mixed round %d pscw: %lld", t_flavor_names[f], round,
          (long long)mine[0]);
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    v = round * 3 + 1;
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, right, t_disp(&w, right, 0, du), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    CHECK(mine[0] == round * 3 + 1, "%s mixed round %d fence: %lld", t_flavor_names[f], round,
          (long long)mine[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* the neighbour's lock epoch must not overwrite it before */
    v = round * 3 + 2;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, right, t_disp(&w, right, 0, du), 1, MPI_INT64_T, w.win));
    MPI_OK(MPI_Win_unlock(right, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    t_sync_own(w.win);
    CHECK(mine[0] == round * 3 + 2, "%s mixed round %d lock: %lld", t_flavor_names[f], round,
          (long long)mine[0]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Group_free(&gl);
  MPI_Group_free(&gr);
  MPI_Group_free(&g_others);
  MPI_Group_free(&g_zero);
  MPI_Group_free(&g_all);
  free(others);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  MPI_Group_free(&world);
  return t_finish("pscw_patterns");
}
