/* Payloads and get data toward another node travel in pieces (OSPREY_REMOTE_PIECE, up to six
 * of them): put, get, accumulate and get_accumulate of sizes around 1 to 6 pieces and just past
 * them (of the default piece, 7,936 bytes, and of 1000), origin and target layouts contiguous or
 * strided (a piece boundary then falls inside the gaps' runs, or, with a piece of 1000 bytes,
 * inside elements), under fence and lock_all + flush, every window flavor. Every element and the
 * gaps between are checked at every target and in every result buffer. */
#include "common.h"

enum { MAXN = 5953, STRIDE = 3, REGION = MAXN * STRIDE }; /* int64 elements */
/* 992, 3968 and 5952 elements are 1, 4 and 6 default pieces; 125 and 750 1 and 6 of 1000 bytes. */
static const int sizes[] = {100, 130, 250, 500, 513, 750, 751, 992, 993, 2048, 3968, 5952, 5953};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
static const int64_t kGap = -7;

static int64_t value(int origin, int size, int i) {
  return (int64_t)origin * 1000003 + (int64_t)size * 131 + i;
}

/* The layout of n int64 values at stride s (1: contiguous). */
static MPI_Datatype layout(int n, int s) {
  MPI_Datatype t;
  if (s == 1)
    MPI_Type_contiguous(n, MPI_INT64_T, &t);
  else
    MPI_Type_vector(n, 1, s, MPI_INT64_T, &t);
  MPI_Type_commit(&t);
  return t;
}

/* Checks region `r` of n values at stride s: want(i) at the values, kGap between, up to REGION. */
#define CHECK_REGION(r, n, s, want, what)                                                    \
  for (int k_ = 0; k_ < REGION; k_++) {                                                      \
    const int64_t got_ = (r)[k_];                                                            \
    const int at_ = k_ % (s) == 0 && k_ / (s) < (n);                                         \
    const int64_t exp_ = at_ ? (want(k_ / (s))) : kGap;                                      \
    CHECK(got_ == exp_, "%s %s n=%d so=%d stride=%d sync=%s: element %d is %lld, want %lld", \
          flavor, what, n, so, s, sync, k_, (long long)got_, (long long)exp_);               \
  }

static void fill_gaps(int64_t* r) {
  for (int k = 0; k < REGION; k++)
    r[k] = kGap;
}

/* Ends the current phase: a fence, or flush_all + barrier + MPI_Win_sync under lock_all. */
static void phase(MPI_Win win, int fence) {
  if (fence) {
    MPI_OK(MPI_Win_fence(0, win));
  } else {
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_sync(win));
  }
}

static void run(enum t_flavor f, int fence) {
  const char* flavor = t_flavor_names[f];
  const char* sync = fence ? "fence" : "lock_all";
  struct t_win w;
  if (!t_win_create(&w, f, 2 * REGION * (MPI_Aint)sizeof(int64_t), 8, MPI_COMM_WORLD)) return;
  int64_t* put_region = (int64_t*)w.base;
  int64_t* acc_region = put_region + REGION;
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  const int du = f == T_DYNAMIC ? 1 : 8;
  const MPI_Aint put_at = t_disp(&w, right, 0, du);
  const MPI_Aint acc_at = t_disp(&w, right, REGION * 8, du);
  int64_t* out = malloc(sizeof(int64_t) * REGION);
  int64_t* back = malloc(sizeof(int64_t) * REGION);
  if (fence)
    MPI_OK(MPI_Win_fence(0, w.win));
  else
    MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int z = 0; z < NSIZES; z++)
    for (int so = 1; so <= STRIDE; so += STRIDE - 1)     /* origin stride 1 or 3 */
      for (int st = 1; st <= STRIDE; st += STRIDE - 1) { /* target stride 1 or 3 */
        const int n = sizes[z];
        MPI_Datatype ot = layout(n, so), tt = layout(n, st);
        fill_gaps(put_region);
        fill_gaps(acc_region);
        for (int i = 0; i < n; i++)
          acc_region[i * st] = 0;
        phase(w.win, fence);

        /* put to the right; the left neighbour's values arrive here */
        fill_gaps(out);
        for (int i = 0; i < n; i++)
          out[i * so] = value(t_rank, n, i);
        MPI_OK(MPI_Put(out, 1, ot, right, put_at, 1, tt, w.win));
        phase(w.win, fence);
#define FROM_LEFT(i) value(left, n, (i))
        CHECK_REGION(put_region, n, st, FROM_LEFT, "put");

        /* get back what this rank put */
        fill_gaps(back);
        MPI_OK(MPI_Get(back, 1, ot, right, put_at, 1, tt, w.win));
        phase(w.win, fence);
#define MINE(i) value(t_rank, n, (i))
        CHECK_REGION(back, n, so, MINE, "get");

        /* accumulate (sum) the same values twice, then get_accumulate 1 each */
        MPI_OK(MPI_Accumulate(out, 1, ot, right, acc_at, 1, tt, MPI_SUM, w.win));
        MPI_OK(MPI_Accumulate(out, 1, ot, right, acc_at, 1, tt, MPI_SUM, w.win));
        phase(w.win, fence);
#define TWICE_LEFT(i) (2 * value(left, n, (i)))
        CHECK_REGION(acc_region, n, st, TWICE_LEFT, "accumulate");
        phase(w.win, fence); /* checked before the left neighbour adds more */
        for (int i = 0; i < n; i++)
          out[i * so] = 1;
        fill_gaps(back);
        MPI_OK(MPI_Get_accumulate(out, 1, ot, back, 1, ot, right, acc_at, 1, tt, MPI_SUM, w.win));
        phase(w.win, fence);
#define TWICE_MINE(i) (2 * value(t_rank, n, (i)))
        CHECK_REGION(back, n, so, TWICE_MINE, "get_accumulate result");
#define TWICE_LEFT_PLUS_ONE(i) (2 * value(left, n, (i)) + 1)
        CHECK_REGION(acc_region, n, st, TWICE_LEFT_PLUS_ONE, "get_accumulate target");
        phase(w.win, fence); /* everyone checked before the next size refills */
        MPI_Type_free(&ot);
        MPI_Type_free(&tt);
      }
  if (fence)
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  else
    MPI_OK(MPI_Win_unlock_all(w.win));
  free(out);
  free(back);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    for (int fence = 0; fence < 2; fence++)
      run((enum t_flavor)f, fence);
  return t_finish("am_remote_pieces");
}
