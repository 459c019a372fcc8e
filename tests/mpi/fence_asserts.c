/* Back-to-back fences with the assertions programs use, every rank giving the same ones:
 * MPI_MODE_NOPRECEDE opens an epoch, a plain fence separates two epochs, MPI_MODE_NOSUCCEED
 * closes it, round after round, with strided (derived datatype) puts in every epoch checked
 * at every target. No fence may report a disagreement, and every byte must arrive in its
 * epoch. In some rounds only one rank puts, so that the others run through fences without
 * waiting and reach the next one ahead of it. */
#include "common.h"

enum { ROUNDS = 300, K = 600 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Datatype strided;
  MPI_Type_vector(K, 1, 2, MPI_INT64_T, &strided); /* every other word */
  MPI_Type_commit(&strided);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    const MPI_Aint slot = 2 * K * sizeof(int64_t);
    if (!t_win_create(&w, (enum t_flavor)f, slot * t_size, 1, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    memset(mine, 0, (size_t)(slot * t_size));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t src[2 * K];
    for (int round = 0; round < ROUNDS; round++) {
      for (int half = 0; half < 2; half++) {
        MPI_OK(MPI_Win_fence(half == 0 ? MPI_MODE_NOPRECEDE : 0, w.win));
        for (int i = 0; i < 2 * K; i++)
          src[i] = ((int64_t)round * 2 + half) * 1000 + t_rank * 10 + i % 10;
        const int putter = round % 2 == 0 || t_rank == round % t_size;
        for (int t = 0; t < t_size && putter; t++)
          MPI_OK(MPI_Put(src, 1, strided, t,
                         t_disp(&w, t, slot * t_rank + half * (MPI_Aint)sizeof(int64_t), 1), 1,
                         strided, w.win));
      }
      MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
      for (int o = 0; o < t_size; o++)
        for (int i = 0; i < 2 * K; i++) {
          if (round % 2 && o != round % t_size) break; /* o put nothing this round */
          const int half = i % 2;
          const int64_t want = ((int64_t)round * 2 + half) * 1000 + o * 10 + (i - half) % 10;
          CHECK(mine[o * 2 * K + i] == want, "%s round %d origin %d word %d: %lld, want %lld",
                t_flavor_names[f], round, o, i, (long long)mine[o * 2 * K + i], (long long)want);
        }
    }
    t_win_free(&w);
  }
  MPI_Type_free(&strided);
  return t_finish("fence_asserts");
}
