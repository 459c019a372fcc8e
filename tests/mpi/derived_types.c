/* Put and get with derived datatypes on both sides (vector, indexed, struct of one basic type,
 * subarray, resized, contiguous), different layouts at origin and target, and one layout on
 * both (one handle, or two equal ones), every flavor; and target layouts that run backward
 * from the displacement (a vector with a negative stride, a resized type whose extent is
 * negative), placed `shift` elements into the slot. */
#include "common.h"

enum { N = 64 };

static void expect_ints(const int* got, const int* want, int n, const char* what, int f) {
  for (int i = 0; i < n; i++)
    CHECK(got[i] == want[i], "%s %s: element %d is %d, want %d", t_flavor_names[f], what, i, got[i],
          want[i]);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Datatype vec, idx, st, sub, res, con, sub2, negv, negr;
  MPI_Type_vector(8, 2, 5, MPI_INT, &vec); /* 16 ints */
  int bl[3] = {3, 1, 4}, dp[3] = {40, 2, 20};
  MPI_Type_indexed(3, bl, dp, MPI_INT, &idx); /* 8 ints, not in address order */
  int sbl[2] = {2, 2};
  MPI_Aint sdp[2] = {0, 12 * (MPI_Aint)sizeof(int)};
  MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, sbl, sdp, sty, &st); /* 4 ints */
  int sizes[2] = {8, 8}, subs[2] = {3, 4}, starts[2] = {2, 1};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);  /* 12 ints */
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub2); /* equal */
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &res); /* 1 int, stride 3 */
  MPI_Type_contiguous(4, MPI_INT, &con);
  MPI_Type_vector(4, 2, -6, MPI_INT, &negv);                    /* 8 ints, from 18 before */
  MPI_Type_create_resized(MPI_INT, 0, -3 * sizeof(int), &negr); /* 1 int, stride -3 */
  MPI_Datatype all[] = {vec, idx, st, sub, res, con, sub2, negv, negr};
  enum { NTYPES = sizeof all / sizeof all[0] };
  for (int i = 0; i < NTYPES; i++)
    MPI_Type_commit(&all[i]);

  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, N * sizeof(int) * t_size, sizeof(int), MPI_COMM_WORLD))
      continue;
    const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int* mine = (int*)w.base;
    int src[N * 4], want[N], back[N * 4];
    for (int i = 0; i < N * 4; i++)
      src[i] = 1000 * t_rank + i;

    struct {
      MPI_Datatype ot;
      int oc;
      MPI_Datatype tt;
      int tc;
      int shift; /* elements into the slot where the target layout starts */
    } cases[] = {
        {MPI_INT, 16, vec, 1, 0}, {vec, 1, MPI_INT, 16, 0},  {idx, 2, vec, 1, 0},
        {st, 3, sub, 1, 0},       {sub, 1, st, 3, 0},        {st, 3, con, 3, 0},
        {res, 16, vec, 1, 0},     {vec, 1, res, 16, 0},      {con, 4, st, 4, 0},
        {con, 2, idx, 1, 0},      {vec, 1, vec, 1, 0},       {sub, 1, sub2, 1, 0},
        {res, 16, res, 16, 0},    {MPI_INT, 8, negv, 1, 18}, {MPI_INT, 5, negr, 5, 12},
        {idx, 1, negv, 1, 20},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < ncases; c++) {
      for (int i = 0; i < N * t_size; i++)
        mine[i] = -1;
      MPI_OK(MPI_Win_fence(0, w.win));
      const MPI_Aint off = ((MPI_Aint)t_rank * N + cases[c].shift) * (MPI_Aint)sizeof(int);
      const MPI_Aint disp =
          f == T_DYNAMIC ? t_disp(&w, right, off, 1) : off / (MPI_Aint)sizeof(int);
      MPI_OK(MPI_Put(src, cases[c].oc, cases[c].ot, right, disp, cases[c].tc, cases[c].tt, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      /* Expected target slot: unpack the left neighbour's origin data into target layout. */
      int lsrc[N * 4], packed[N * 4];
      for (int i = 0; i < N * 4; i++)
        lsrc[i] = 1000 * left + i;
      int pos = 0;
      MPI_Pack(lsrc, cases[c].oc, cases[c].ot, packed, sizeof packed, &pos, MPI_COMM_SELF);
      for (int i = 0; i < N; i++)
        want[i] = -1;
      pos = 0;
      MPI_Unpack(packed, sizeof packed, &pos, want + cases[c].shift, cases[c].tc, cases[c].tt,
                 MPI_COMM_SELF);
      expect_ints(mine + left * N, want, N, "put", f);
      /* Get it back into the origin layout and compare with what I sent. */
      for (int i = 0; i < N * 4; i++)
        back[i] = -5;
      MPI_OK(MPI_Get(back, cases[c].oc, cases[c].ot, right, disp, cases[c].tc, cases[c].tt, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      CHECK(t_same_data(back, src, cases[c].oc, cases[c].ot), "%s case %d: get differs",
            t_flavor_names[f], c);
    }
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    t_win_free(&w);
  }
  for (int i = 0; i < NTYPES; i++)
    MPI_Type_free(&all[i]);
  return t_finish("derived_types");
}
