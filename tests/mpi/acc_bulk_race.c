/* Accumulates on many elements (which run as plain loops while single-element atomics are held
 * off) race single-element operations on the same elements: every rank adds 1 to every element
 * of rank 0's two arrays (int64 and double) with accumulates of the whole array, and adds 1 to
 * elements it picks with fetch_and_op, one-element accumulates and get_accumulates, and
 * compare-and-swap loops. No update may be lost: at the end each element holds the number of
 * additions made to it. Whole-array accumulates alternate between plain, request-based and
 * get_accumulate, and between the predefined type and a contiguous derived type (the general
 * path); fetched old values must lie between 0 and the final count. Even ranks mostly add
 * whole arrays, odd ranks mostly single elements, so that both kinds overlap as often as
 * possible. All flavors; on mixed windows node-local and remote origins race. */
#include "common.h"

enum { ITERS = 600, NE = 512 };

static void run(enum t_flavor f) {
  struct t_win w;
  const MPI_Aint bytes = 2 * NE * 8;
  if (!t_win_create(&w, f, bytes, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, (size_t)bytes);
  MPI_Datatype ctg_i, ctg_d;
  MPI_OK(MPI_Type_contiguous(NE, MPI_INT64_T, &ctg_i));
  MPI_OK(MPI_Type_contiguous(NE, MPI_DOUBLE, &ctg_d));
  MPI_OK(MPI_Type_commit(&ctg_i));
  MPI_OK(MPI_Type_commit(&ctg_d));
  MPI_Barrier(MPI_COMM_WORLD);
  const MPI_Aint at_i = t_disp(&w, 0, 0, 1), at_d = t_disp(&w, 0, NE * 8, 1);
  int64_t ones_i[NE], old_i[NE], mine_i[NE] = {0};
  double ones_d[NE], old_d[NE];
  int64_t mine_d[NE] = {0};
  for (int i = 0; i < NE; i++) {
    ones_i[i] = 1;
    ones_d[i] = 1.0;
  }
  unsigned seed = 12345u + 7919u * (unsigned)t_rank;
  const int bulk_every = t_rank % 2 ? 8 : 1, singles = t_rank % 2 ? 8 : 1;
  const int64_t most = (int64_t)t_size * ITERS * 9;
  int64_t bulks = 0;
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int it = 0; it < ITERS; it++) {
    if (it % bulk_every == 0) bulks++;
    const int derived = (it / bulk_every / 3) % 2;
    const MPI_Datatype ti = derived ? ctg_i : MPI_INT64_T, td = derived ? ctg_d : MPI_DOUBLE;
    const int n = derived ? 1 : NE;
    switch (it % bulk_every ? -1 : (it / bulk_every) % 3) {
      case -1:
        break;
      case 0:
        MPI_OK(MPI_Accumulate(ones_i, n, ti, 0, at_i, n, ti, MPI_SUM, w.win));
        MPI_OK(MPI_Accumulate(ones_d, n, td, 0, at_d, n, td, MPI_SUM, w.win));
        break;
      case 1: {
        MPI_Request r[2];
        MPI_OK(MPI_Raccumulate(ones_i, n, ti, 0, at_i, n, ti, MPI_SUM, w.win, &r[0]));
        MPI_OK(MPI_Raccumulate(ones_d, n, td, 0, at_d, n, td, MPI_SUM, w.win, &r[1]));
        MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        break;
      }
      case 2:
        MPI_OK(MPI_Get_accumulate(ones_i, n, ti, old_i, n, ti, 0, at_i, n, ti, MPI_SUM, w.win));
        MPI_OK(MPI_Get_accumulate(ones_d, n, td, old_d, n, td, 0, at_d, n, td, MPI_SUM, w.win));
        MPI_OK(MPI_Win_flush(0, w.win));
        for (int i = 0; i < NE; i++) {
          CHECK(old_i[i] >= 0 && old_i[i] < most, "%s iter %d: fetched int64 %d is %lld",
                t_flavor_names[f], it, i, (long long)old_i[i]);
          CHECK(old_d[i] >= 0 && old_d[i] < (double)most, "%s iter %d: fetched double %d is %g",
                t_flavor_names[f], it, i, old_d[i]);
        }
        break;
    }
    for (int s = 0; s < singles; s++) {
      const int e = (int)(rand_r(&seed) % NE);
      const MPI_Aint ei = at_i + e * 8, ed = at_d + e * 8;
      int64_t one = 1, got = 0;
      double oned = 1.0, gotd = 0;
      switch ((it + s) % 4) {
        case 0:
          MPI_OK(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, ei, MPI_SUM, w.win));
          MPI_OK(MPI_Fetch_and_op(&oned, &gotd, MPI_DOUBLE, 0, ed, MPI_SUM, w.win));
          break;
        case 1:
          MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, ei, 1, MPI_INT64_T, MPI_SUM, w.win));
          MPI_OK(MPI_Accumulate(&oned, 1, MPI_DOUBLE, 0, ed, 1, MPI_DOUBLE, MPI_SUM, w.win));
          break;
        case 2:
          MPI_OK(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &got, 1, MPI_INT64_T, 0, ei, 1,
                                    MPI_INT64_T, MPI_SUM, w.win));
          MPI_OK(MPI_Get_accumulate(&oned, 1, MPI_DOUBLE, &gotd, 1, MPI_DOUBLE, 0, ed, 1,
                                    MPI_DOUBLE, MPI_SUM, w.win));
          break;
        default: {
          /* Increment by compare-and-swap until it sticks (int64 only; the double element gets
           * a fetch_and_op). */
          int64_t cur = 0, seen = -1;
          MPI_OK(MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, 0, ei, MPI_NO_OP, w.win));
          MPI_OK(MPI_Win_flush(0, w.win));
          for (;;) {
            const int64_t next = cur + 1;
            MPI_OK(MPI_Compare_and_swap(&next, &cur, &seen, MPI_INT64_T, 0, ei, w.win));
            MPI_OK(MPI_Win_flush(0, w.win));
            if (seen == cur) break;
            cur = seen;
          }
          MPI_OK(MPI_Fetch_and_op(&oned, &gotd, MPI_DOUBLE, 0, ed, MPI_SUM, w.win));
          break;
        }
      }
      MPI_OK(MPI_Win_flush(0, w.win));
      mine_i[e]++;
      mine_d[e]++;
    }
    MPI_OK(MPI_Win_flush(0, w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  int64_t want_i[NE], want_d[NE], whole = 0;
  MPI_OK(MPI_Reduce(&bulks, &whole, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
  MPI_OK(MPI_Reduce(mine_i, want_i, NE, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
  MPI_OK(MPI_Reduce(mine_d, want_d, NE, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    const int64_t* vi = (const int64_t*)w.base;
    const double* vd = (const double*)(w.base + NE * 8);
    for (int i = 0; i < NE; i++) {
      CHECK(vi[i] == whole + want_i[i], "%s: int64 element %d is %lld, want %lld",
            t_flavor_names[f], i, (long long)vi[i], (long long)(whole + want_i[i]));
      CHECK(vd[i] == (double)(whole + want_d[i]), "%s: double element %d is %g, want %lld",
            t_flavor_names[f], i, vd[i], (long long)(whole + want_d[i]));
    }
  }
  MPI_OK(MPI_Type_free(&ctg_i));
  MPI_OK(MPI_Type_free(&ctg_d));
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("acc_bulk_race");
}
