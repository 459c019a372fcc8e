/* Large transfers: payloads far above the eager limit go as separate messages straight into
 * place, target layouts too large for a request slot go separately too; put, get, accumulate
 * and get_accumulate of megabytes, contiguous and strided, every flavor, fence and lock_all. */
#include "common.h"

enum { N = 1 << 17 };   /* int64 elements: 1 MiB */
enum { BLOCKS = 6000 }; /* a vector target type of 6000 blocks: ~96 KB of layout */

static void run(enum t_flavor f) {
  const MPI_Aint bytes = (MPI_Aint)(2 * N) * (MPI_Aint)sizeof(int64_t);
  struct t_win w;
  if (!t_win_create(&w, f, bytes, 8, MPI_COMM_WORLD)) return;
  int64_t* mine = (int64_t*)w.base;
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  const int du = f == T_DYNAMIC ? 1 : 8;
  int64_t* out = malloc(sizeof(int64_t) * N);
  int64_t* back = malloc(sizeof(int64_t) * N);
  for (int64_t i = 0; i < N; i++)
    out[i] = t_rank * 1000000007LL + i;
  for (int64_t i = 0; i < 2 * N; i++)
    mine[i] = 0;
  MPI_Datatype vec;
  MPI_Type_vector(BLOCKS, 3, 7, MPI_INT64_T, &vec); /* 18000 elements spread over 42000 */
  MPI_Type_commit(&vec);

  /* 1 MiB put and get under fence. */
  MPI_OK(MPI_Win_fence(0, w.win));
  MPI_OK(MPI_Put(out, N, MPI_INT64_T, right, t_disp(&w, right, 0, du), N, MPI_INT64_T, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int64_t i = 0; i < N; i++)
    CHECK(mine[i] == left * 1000000007LL + i, "%s: 1 MiB put word %lld", t_flavor_names[f],
          (long long)i);
  MPI_OK(MPI_Get(back, N, MPI_INT64_T, right, t_disp(&w, right, 0, du), N, MPI_INT64_T, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  CHECK(memcmp(back, out, sizeof(int64_t) * N) == 0, "%s: 1 MiB get", t_flavor_names[f]);

  /* A strided target whose layout does not fit a request. */
  const MPI_Aint half = (MPI_Aint)N * 8;
  MPI_OK(MPI_Put(out, 3 * BLOCKS, MPI_INT64_T, right, t_disp(&w, right, half, du), 1, vec, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  for (int b = 0; b < BLOCKS; b++)
    for (int j = 0; j < 3; j++)
      CHECK(mine[N + b * 7 + j] == left * 1000000007LL + b * 3 + j, "%s: strided put block %d",
            t_flavor_names[f], b);
  memset(back, 0, sizeof(int64_t) * N);
  MPI_OK(MPI_Get(back, 3 * BLOCKS, MPI_INT64_T, right, t_disp(&w, right, half, du), 1, vec, w.win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  CHECK(memcmp(back, out, sizeof(int64_t) * 3 * BLOCKS) == 0, "%s: strided get", t_flavor_names[f]);

  /* Large accumulates and get_accumulates under lock_all: everyone adds into the left half of
   * rank 0's window; the fetched old values are checked against the sequence of additions. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0)
    for (int64_t i = 0; i < N; i++)
      mine[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t* ones = malloc(sizeof(int64_t) * N);
  for (int64_t i = 0; i < N; i++)
    ones[i] = i % 5 + 1;
  MPI_OK(MPI_Win_lock_all(0, w.win));
  MPI_OK(MPI_Accumulate(ones, N, MPI_INT64_T, 0, t_disp(&w, 0, 0, du), N, MPI_INT64_T, MPI_SUM,
                        w.win));
  MPI_OK(MPI_Get_accumulate(ones, N, MPI_INT64_T, back, N, MPI_INT64_T, 0, t_disp(&w, 0, 0, du), N,
                            MPI_INT64_T, MPI_SUM, w.win));
  MPI_OK(MPI_Win_unlock_all(w.win));
  /* My get_accumulate saw my own accumulate applied (same-origin ordering) and at most
   * everyone else's two additions. */
  for (int64_t i = 0; i < N; i += 97) {
    const int64_t unit = i % 5 + 1;
    CHECK(back[i] % unit == 0 && back[i] >= unit && back[i] <= (2 * t_size - 1) * unit,
          "%s: get_accumulate old value %lld at %lld", t_flavor_names[f], (long long)back[i],
          (long long)i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0)
    for (int64_t i = 0; i < N; i++)
      CHECK(mine[i] == 2 * t_size * (i % 5 + 1), "%s: accumulated %lld at %lld", t_flavor_names[f],
            (long long)mine[i], (long long)i);
  MPI_Type_free(&vec);
  free(ones);
  free(out);
  free(back);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("am_large");
}
