/* PSCW rings of many epochs on every flavor: each rank exposes its window to its left
 * neighbour and accesses its right neighbour, alternating two slots so that a late epoch
 * would be caught; put, get and accumulate inside the access epochs. Every rank is origin
 * and target at once (overlapping access and exposure epochs). */
#include "common.h"

enum { WORDS = 8, EPOCHS = 400 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  MPI_Group world, gl, gr;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &gl);
  MPI_Group_incl(world, 1, &right, &gr);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, (2 * WORDS + 1) * sizeof(int64_t), 1, MPI_COMM_WORLD))
      continue;
    int64_t* mine = (int64_t*)w.base;
    memset(mine, 0, (2 * WORDS + 1) * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t out[WORDS], back[WORDS];
    for (int e = 0; e < EPOCHS; e++) {
      const int slot = e % 2;
      MPI_OK(MPI_Win_post(gl, 0, w.win));
      MPI_OK(MPI_Win_start(gr, 0, w.win));
      for (int i = 0; i < WORDS; i++)
        out[i] = (int64_t)e * 1000 + t_rank * 100 + i;
      const MPI_Aint d = t_disp(&w, right, slot * WORDS * (MPI_Aint)sizeof(int64_t), 1);
      MPI_OK(MPI_Put(out, WORDS, MPI_INT64_T, right, d, WORDS, MPI_INT64_T, w.win));
      int64_t one = 1;
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, right, t_disp(&w, right, 2 * WORDS * 8, 1), 1,
                            MPI_INT64_T, MPI_SUM, w.win));
      MPI_OK(MPI_Win_complete(w.win));
      MPI_OK(MPI_Win_wait(w.win));
      for (int i = 0; i < WORDS; i++)
        CHECK(mine[slot * WORDS + i] == (int64_t)e * 1000 + left * 100 + i,
              "%s epoch %d word %d: %lld", t_flavor_names[f], e, i,
              (long long)mine[slot * WORDS + i]);
      CHECK(mine[2 * WORDS] == e + 1, "%s epoch %d: counter %lld", t_flavor_names[f], e,
            (long long)mine[2 * WORDS]);
      /* Read back, in a second epoch, what I put last time. */
      if (e % 10 == 9) {
        MPI_OK(MPI_Win_post(gl, MPI_MODE_NOPUT, w.win));
        MPI_OK(MPI_Win_start(gr, 0, w.win));
        MPI_OK(MPI_Get(back, WORDS, MPI_INT64_T, right, d, WORDS, MPI_INT64_T, w.win));
        MPI_OK(MPI_Win_complete(w.win));
        MPI_OK(MPI_Win_wait(w.win));
        CHECK(memcmp(back, out, sizeof out) == 0, "%s epoch %d: get back", t_flavor_names[f], e);
      }
    }
    t_win_free(&w);
  }
  MPI_Group_free(&gl);
  MPI_Group_free(&gr);
  MPI_Group_free(&world);
  return t_finish("pscw_ring");
}
