/* Whole-array accumulates under exclusive locks (osprey applies those without an atomic per
 * element), racing with single-element MPI_Fetch_and_op under shared locks on the same elements
 * from every rank, then REPLACE, MAX, BXOR, wrapping and floating sums and MAXLOC pairs. Every
 * target checks every element exactly: a lost or torn update fails. */
#include <stddef.h>

#include "common.h"

enum { N = 1000, ROUNDS = 21 };

struct layout {
  int64_t sum[N];
  int64_t replace[N];
  double dsum[N];
  int32_t bxor[N];
  int16_t max[N];
  uint8_t wrap[N];
  struct {
    int v, i;
  } maxloc[N];
};

static int hit(int round, int origin) {
  return (round * 7 + origin * 131) % N;
}

static void origin_rounds(MPI_Win win) {
  static struct layout src;
  const int r = t_rank;
  for (int i = 0; i < N; i++) {
    src.sum[i] = (int64_t)(r + 1) * (i + 1);
    src.replace[i] = (int64_t)r * N + i;
    src.dsum[i] = (double)(r + 1) * 0.5;
    src.bxor[i] = (r + 1) << (i % 8);
    src.max[i] = (int16_t)((r * 37 + i) % 1000);
    src.wrap[i] = (uint8_t)((r + i) % 256);
    src.maxloc[i].v = (i * (r + 1)) % 17;
    src.maxloc[i].i = r;
  }
  const int64_t one = 1;
  int64_t old;
  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < t_size; k++) {
      const int t = (r + k) % t_size;
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
      MPI_OK(MPI_Accumulate(src.sum, N, MPI_INT64_T, t, offsetof(struct layout, sum), N,
                            MPI_INT64_T, MPI_SUM, win));
      MPI_OK(MPI_Accumulate(src.replace, N, MPI_INT64_T, t, offsetof(struct layout, replace), N,
                            MPI_INT64_T, MPI_REPLACE, win));
      MPI_OK(MPI_Accumulate(src.dsum, N, MPI_DOUBLE, t, offsetof(struct layout, dsum), N,
                            MPI_DOUBLE, MPI_SUM, win));
      MPI_OK(MPI_Accumulate(src.bxor, N, MPI_INT32_T, t, offsetof(struct layout, bxor), N,
                            MPI_INT32_T, MPI_BXOR, win));
      MPI_OK(MPI_Accumulate(src.max, N, MPI_INT16_T, t, offsetof(struct layout, max), N,
                            MPI_INT16_T, MPI_MAX, win));
      MPI_OK(MPI_Accumulate(src.wrap, N, MPI_UINT8_T, t, offsetof(struct layout, wrap), N,
                            MPI_UINT8_T, MPI_SUM, win));
      MPI_OK(MPI_Accumulate(src.maxloc, N, MPI_2INT, t, offsetof(struct layout, maxloc), N,
                            MPI_2INT, MPI_MAXLOC, win));
      MPI_OK(MPI_Win_unlock(t, win));
      /* The same counters, one element at a time, under a shared lock. */
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
      const MPI_Aint d = offsetof(struct layout, sum) + (MPI_Aint)hit(round, r) * 8;
      MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, d, MPI_SUM, win));
      MPI_OK(MPI_Win_unlock(t, win));
    }
  }
}

static void check(const struct layout* m, const char* flavor) {
  int64_t fops[N] = {0};
  for (int round = 0; round < ROUNDS; round++)
    for (int o = 0; o < t_size; o++)
      fops[hit(round, o)]++;
  const int64_t ranks_sum = (int64_t)t_size * (t_size + 1) / 2;
  const int from = (int)(m->replace[0] / N);
  for (int i = 0; i < N; i++) {
    const int64_t want = ROUNDS * ranks_sum * (i + 1) + fops[i];
    CHECK(m->sum[i] == want, "%s: sum[%d] = %lld, want %lld", flavor, i, (long long)m->sum[i],
          (long long)want);
    CHECK(from >= 0 && from < t_size && m->replace[i] == (int64_t)from * N + i,
          "%s: replace[%d] = %lld mixes origins (element 0 came from rank %d)", flavor, i,
          (long long)m->replace[i], from);
    CHECK(m->dsum[i] == ROUNDS * 0.5 * (double)ranks_sum, "%s: dsum[%d] = %g", flavor, i,
          m->dsum[i]);
    int32_t x = 0;
    int16_t mx = 0;
    unsigned w = 0;
    int best = -1, at = -1;
    for (int o = 0; o < t_size; o++) {
      x ^= (o + 1) << (i % 8); /* ROUNDS is odd: each origin's value stays xored in once */
      if ((o * 37 + i) % 1000 > mx) mx = (int16_t)((o * 37 + i) % 1000);
      w += (unsigned)((o + i) % 256) * ROUNDS;
      if ((i * (o + 1)) % 17 > best) best = (i * (o + 1)) % 17, at = o;
    }
    CHECK(m->bxor[i] == x, "%s: bxor[%d] = %d, want %d", flavor, i, m->bxor[i], x);
    CHECK(m->max[i] == mx, "%s: max[%d] = %d, want %d", flavor, i, m->max[i], mx);
    CHECK(m->wrap[i] == (uint8_t)w, "%s: wrap[%d] = %u, want %u", flavor, i, m->wrap[i],
          (unsigned)(uint8_t)w);
    CHECK(m->maxloc[i].v == best && m->maxloc[i].i == at,
          "%s: maxloc[%d] = (%d, %d), want (%d, %d)", flavor, i, m->maxloc[i].v, m->maxloc[i].i,
          best, at);
  }
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const char* flavors[] = {"allocate", "create"};
  for (int f = 0; f < 2; f++) {
    struct layout* m;
    MPI_Win win;
    if (f == 0) {
      MPI_OK(MPI_Win_allocate(sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
    } else {
      m = malloc(sizeof *m);
      MPI_OK(MPI_Win_create(m, sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, win));
    memset(m, 0, sizeof *m);
    for (int i = 0; i < N; i++)
      m->maxloc[i].v = -1;
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    origin_rounds(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    check(m, flavors[f]);
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_OK(MPI_Win_free(&win));
    if (f == 1) free(m);
  }
  return t_finish("acc_exclusive");
}
