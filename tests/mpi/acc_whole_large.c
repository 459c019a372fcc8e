/* Large accumulates apply to their target as a whole, racing each other: on create and dynamic
 * windows a node peer's accumulate is read, combined and written back a chunk at a time, and
 * the message-path target combines in place, so a reader must still never see one accumulate
 * half applied. Every rank adds 1 to every element of rank 0's first array (320 KiB, several
 * chunks, with accumulates, request-based accumulates and get_accumulates, whose fetched copy
 * must be uniform) and replaces the second array with a value of its own (MPI_REPLACE); then it
 * fetches the other array whole with a MPI_NO_OP get_accumulate, which must be uniform too.
 * Single-element fetch_and_ops count into a word between the arrays meanwhile. At the end every
 * element of the first array holds the number of additions, the second array one rank's value,
 * the counter every fetch_and_op. All flavors; on mixed windows node-local and remote origins
 * race. */
#include "common.h"

enum { N = 40960, ITERS = 60 };

static const MPI_Aint kSum = 0, kCounter = (MPI_Aint)N * 8, kRep = (MPI_Aint)N * 8 + 64;
static const MPI_Aint kBytes = (MPI_Aint)N * 16 + 64;

static void check_uniform(const int64_t* a, const char* what, const char* flavor, int iter) {
  for (int i = 1; i < N; i++)
    CHECK(a[i] == a[0], "%s %s iter %d: element %d is %lld, element 0 is %lld: torn", flavor, what,
          iter, i, (long long)a[i], (long long)a[0]);
}

static void run(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, kBytes, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, (size_t)kBytes);
  t_sync_own(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  const char* name = t_flavor_names[f];
  int64_t* ones = malloc(N * 8);
  int64_t* mine = malloc(N * 8);
  int64_t* got = malloc(N * 8);
  for (int i = 0; i < N; i++)
    ones[i] = 1;
  const MPI_Aint sum = t_disp(&w, 0, kSum, 1), rep = t_disp(&w, 0, kRep, 1);
  const int64_t one = 1;
  int64_t fetched = 0;
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int it = 0; it < ITERS; it++) {
    switch (it % 3) {
      case 0:
        MPI_OK(MPI_Accumulate(ones, N, MPI_INT64_T, 0, sum, N, MPI_INT64_T, MPI_SUM, w.win));
        break;
      case 1: {
        MPI_Request r;
        MPI_OK(MPI_Raccumulate(ones, N, MPI_INT64_T, 0, sum, N, MPI_INT64_T, MPI_SUM, w.win, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        break;
      }
      default:
        MPI_OK(MPI_Get_accumulate(ones, N, MPI_INT64_T, got, N, MPI_INT64_T, 0, sum, N, MPI_INT64_T,
                                  MPI_SUM, w.win));
        MPI_OK(MPI_Win_flush(0, w.win));
        check_uniform(got, "fetched sum array", name, it);
        CHECK(got[0] >= 0 && got[0] < (int64_t)ITERS * t_size, "%s iter %d: fetched %lld", name, it,
              (long long)got[0]);
        break;
    }
    for (int i = 0; i < N; i++)
      mine[i] = (int64_t)t_rank * 1000000 + it + 1;
    MPI_OK(MPI_Accumulate(mine, N, MPI_INT64_T, 0, rep, N, MPI_INT64_T, MPI_REPLACE, w.win));
    MPI_OK(MPI_Fetch_and_op(&one, &fetched, MPI_INT64_T, 0, t_disp(&w, 0, kCounter, 1), MPI_SUM,
                            w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    const int sum_turn = it % 2 == 0;
    MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, got, N, MPI_INT64_T, 0, sum_turn ? sum : rep, N,
                              MPI_INT64_T, MPI_NO_OP, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    check_uniform(got, sum_turn ? "sum array" : "replaced array", name, it);
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    const int64_t* s = (const int64_t*)(w.base + kSum);
    const int64_t* r = (const int64_t*)(w.base + kRep);
    const int64_t* counter = (const int64_t*)(w.base + kCounter);
    for (int i = 0; i < N; i++)
      CHECK(s[i] == (int64_t)ITERS * t_size, "%s: sum element %d is %lld, want %lld", name, i,
            (long long)s[i], (long long)ITERS * t_size);
    check_uniform(r, "final replaced array", name, 0);
    CHECK(r[0] % 1000000 == ITERS, "%s: replaced array holds %lld, not a last write", name,
          (long long)r[0]);
    CHECK(*counter == (int64_t)ITERS * t_size, "%s: counter %lld, want %lld", name,
          (long long)*counter, (long long)ITERS * t_size);
  }
  free(ones);
  free(mine);
  free(got);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("acc_whole_large");
}
