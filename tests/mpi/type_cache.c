/* Target layouts travel once per window and target and are then named by a slot the target
 * keeps (on the message path): here 80 distinct strided and indexed datatypes, more than the
 * slots, are used in turn, twice over, so slots are filled, reused and filled again; some of
 * the types are freed while their operations may still be in flight. Then all 80 go out in one
 * lock_all epoch without a flush in between, so requests that name a slot and requests that
 * refill it wait at the target together. Every byte is checked. */
#include "common.h"

enum { NTYPES = 80, ROUNDS = 2, WORDS = 64 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    const MPI_Aint bytes = (MPI_Aint)WORDS * 8 * t_size;
    if (!t_win_create(&w, (enum t_flavor)f, bytes, 1, MPI_COMM_WORLD)) continue;
    int64_t* mine = (int64_t*)w.base;
    const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int64_t src[WORDS];
    for (int round = 0; round < ROUNDS; round++) {
      for (int k = 0; k < NTYPES; k++) {
        /* Type k: every (k % 7 + 2)-th word, as a vector or as an irregular indexed type. */
        const int step = k % 7 + 2, n = (WORDS - 1) / step + 1;
        MPI_Datatype ty;
        if (k % 2 == 0) {
          MPI_Type_vector(n, 1, step, MPI_INT64_T, &ty);
        } else {
          int lens[WORDS], displs[WORDS];
          for (int i = 0; i < n; i++)
            lens[i] = 1, displs[i] = i * step;
          if (n > 1) displs[n - 1] = WORDS - 1; /* an irregular last block */
          MPI_Type_indexed(n, lens, displs, MPI_INT64_T, &ty);
        }
        MPI_Type_commit(&ty);
        memset(mine, 0, (size_t)bytes);
        for (int i = 0; i < WORDS; i++)
          src[i] = (int64_t)round * 1000000 + k * 1000 + t_rank * 100 + i;
        MPI_OK(MPI_Win_fence(0, w.win));
        MPI_OK(MPI_Put(src, 1, ty, right, t_disp(&w, right, (MPI_Aint)t_rank * WORDS * 8, 1), 1, ty,
                       w.win));
        if (k % 4 == 1) MPI_Type_free(&ty); /* the operation keeps what it needs */
        MPI_OK(MPI_Win_fence(0, w.win));
        /* Words the type covers hold left's pattern, the others stay 0. */
        const int64_t* slot = mine + (size_t)left * WORDS;
        int covered[WORDS] = {0};
        for (int i = 0; i < n; i++)
          covered[k % 2 == 1 && n > 1 && i == n - 1 ? WORDS - 1 : i * step] = 1;
        for (int i = 0; i < WORDS; i++) {
          const int64_t want =
              covered[i] ? (int64_t)round * 1000000 + k * 1000 + left * 100 + i : 0;
          CHECK(slot[i] == want, "%s round %d type %d word %d: %lld, want %lld", t_flavor_names[f],
                round, k, i, (long long)slot[i], (long long)want);
        }
        if (k % 4 != 1) MPI_Type_free(&ty);
      }
    }
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    t_win_free(&w);

    /* One epoch, 80 types used twice, one region per use. */
    if (!t_win_create(&w, (enum t_flavor)f, bytes * NTYPES * ROUNDS, 1, MPI_COMM_WORLD)) continue;
    mine = (int64_t*)w.base;
    memset(mine, 0, (size_t)(bytes * NTYPES * ROUNDS));
    MPI_Datatype types[NTYPES];
    for (int k = 0; k < NTYPES; k++) {
      MPI_Type_vector(WORDS / (k % 7 + 2), 1, k % 7 + 2, MPI_INT64_T, &types[k]);
      MPI_Type_commit(&types[k]);
    }
    for (int i = 0; i < WORDS; i++)
      src[i] = t_rank * 100 + i;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, w.win));
    for (int round = 0; round < ROUNDS; round++)
      for (int k = 0; k < NTYPES; k++)
        MPI_OK(MPI_Put(
            src, 1, types[k], right,
            t_disp(&w, right, (((MPI_Aint)round * NTYPES + k) * t_size + t_rank) * WORDS * 8, 1), 1,
            types[k], w.win));
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < NTYPES; k++) {
      const int step = k % 7 + 2, n = WORDS / step;
      const int64_t* slot = mine + ((size_t)k * t_size + left) * WORDS;
      for (int i = 0; i < WORDS; i++) {
        const int64_t want = i % step == 0 && i / step < n ? left * 100 + i : 0;
        CHECK(slot[i] == want, "%s one epoch: type %d word %d: %lld, want %lld", t_flavor_names[f],
              k, i, (long long)slot[i], (long long)want);
      }
      MPI_Type_free(&types[k]);
    }
    t_win_free(&w);
  }
  return t_finish("type_cache");
}
