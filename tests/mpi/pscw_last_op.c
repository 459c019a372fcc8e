/* PSCW epochs whose last operation is of every kind, toward one target from every other rank.
 * On the message path an epoch's last operation that goes as a request of its own carries the
 * epoch's complete, so the target counts the complete as that operation retires. What must
 * hold: the target leaves MPI_Win_wait only once every origin's operations are applied (it
 * checks every word of its window right after the wait, then rewrites all of it), and what an
 * origin reads in the epoch is the window as the target wrote it before its post. Each epoch
 * starts with a one-word put (a small record ahead of the last operation), then one of: a put
 * of 2 or 4 KiB, an accumulate of 2 KiB, a get_accumulate, a fetch_and_op, a
 * compare_and_swap, a get of 4 KiB, a put through a vector target type. Every flavor. */
#include "common.h"

enum {
  ROUNDS = 6,
  KINDS = 8,
  REG = 1152,   /* int64 words of each origin's region at the target */
  AT = 8,       /* where the last operation's words start in a region */
  VBLOCKS = 16, /* the vector type: VBLOCKS blocks of VLEN words, VSTRIDE apart */
  VLEN = 16,
  VSTRIDE = 32,
};

/* The target's word i before the epoch of (round, kind). */
static int64_t before(int round, int kind, int i) {
  return (int64_t)(round * KINDS + kind) * 1000000 + i;
}

/* Origin o's j-th data word in the epoch of (round, kind). */
static int64_t data(int o, int round, int kind, int j) {
  return (int64_t)o * 100000000 + round * 10000 + kind * 1000 + j;
}

/* How many words the last operation of `kind` moves (words of data at the origin). */
static int words_of(int kind) {
  static const int n[KINDS] = {256, 512, 256, 64, 1, 1, 512, VBLOCKS * VLEN};
  return n[kind];
}

/* What word i of origin o's region (offset i from its start) holds after the epoch. */
static int64_t expected(int o, int round, int kind, int i) {
  const int64_t b = before(round, kind, (o - 1) * REG + i);
  if (i == 0) return data(o, round, kind, 999);
  const int j = i - AT;
  if (j < 0) return b;
  switch (kind) {
    case 0:
    case 1:
      return j < words_of(kind) ? data(o, round, kind, j) : b;
    case 2:
    case 3:
      return j < words_of(kind) ? b + data(o, round, kind, j) : b;
    case 4:
      return j == 0 ? b + data(o, round, kind, 0) : b;
    case 5:
      return j == 0 ? data(o, round, kind, 0) : b;
    case 7:
      if (j < VBLOCKS * VSTRIDE && j % VSTRIDE < VLEN)
        return data(o, round, kind, j / VSTRIDE * VLEN + j % VSTRIDE);
      return b;
    default: /* a get changes nothing */
      return b;
  }
}

static void run(enum t_flavor f, MPI_Group g_others, MPI_Group g_zero, MPI_Datatype vec) {
  const int nwords = (t_size - 1) * REG;
  struct t_win w;
  if (!t_win_create(&w, f, (MPI_Aint)nwords * 8, 1, MPI_COMM_WORLD)) return;
  int64_t* mine = (int64_t*)w.base;
  int64_t* src = malloc(sizeof(int64_t) * 512);
  int64_t* got = malloc(sizeof(int64_t) * 512);
  for (int round = 0; round < ROUNDS; round++) {
    for (int kind = 0; kind < KINDS; kind++) {
      if (t_rank == 0) {
        for (int i = 0; i < nwords; i++)
          mine[i] = before(round, kind, i);
        MPI_OK(MPI_Win_post(g_others, 0, w.win));
        MPI_OK(MPI_Win_wait(w.win));
        for (int o = 1; o < t_size; o++)
          for (int i = 0; i < REG; i++) {
            const int64_t want = expected(o, round, kind, i);
            CHECK(mine[(o - 1) * REG + i] == want,
                  "%s round %d kind %d: origin %d word %d is %lld, want %lld", t_flavor_names[f],
                  round, kind, o, i, (long long)mine[(o - 1) * REG + i], (long long)want);
          }
        continue;
      }
      const MPI_Aint base = (MPI_Aint)(t_rank - 1) * REG * 8;
      const MPI_Aint last = t_disp(&w, 0, base + AT * 8, 1);
      const int n = words_of(kind);
      for (int j = 0; j < n; j++)
        src[j] = data(t_rank, round, kind, j);
      const int64_t first = data(t_rank, round, kind, 999);
      int64_t old = -1;
      const int64_t compare = before(round, kind, (t_rank - 1) * REG + AT);
      memset(got, 0xff, sizeof(int64_t) * 512);
      MPI_OK(MPI_Win_start(g_zero, 0, w.win));
      MPI_OK(MPI_Put(&first, 1, MPI_INT64_T, 0, t_disp(&w, 0, base, 1), 1, MPI_INT64_T, w.win));
      switch (kind) {
        case 0:
        case 1:
          MPI_OK(MPI_Put(src, n, MPI_INT64_T, 0, last, n, MPI_INT64_T, w.win));
          break;
        case 2:
          MPI_OK(MPI_Accumulate(src, n, MPI_INT64_T, 0, last, n, MPI_INT64_T, MPI_SUM, w.win));
          break;
        case 3:
          MPI_OK(MPI_Get_accumulate(src, n, MPI_INT64_T, got, n, MPI_INT64_T, 0, last, n,
                                    MPI_INT64_T, MPI_SUM, w.win));
          break;
        case 4:
          MPI_OK(MPI_Fetch_and_op(src, &old, MPI_INT64_T, 0, last, MPI_SUM, w.win));
          break;
        case 5:
          MPI_OK(MPI_Compare_and_swap(src, &compare, &old, MPI_INT64_T, 0, last, w.win));
          break;
        case 6:
          MPI_OK(MPI_Get(got, n, MPI_INT64_T, 0, last, n, MPI_INT64_T, w.win));
          break;
        default:
          MPI_OK(MPI_Put(src, n, MPI_INT64_T, 0, last, 1, vec, w.win));
          break;
      }
      MPI_OK(MPI_Win_complete(w.win));
      const int64_t b = before(round, kind, (t_rank - 1) * REG + AT);
      if (kind == 4 || kind == 5)
        CHECK(old == b, "%s round %d kind %d: old value %lld, want %lld", t_flavor_names[f], round,
              kind, (long long)old, (long long)b);
      if (kind == 3 || kind == 6)
        for (int j = 0; j < n; j++) {
          const int64_t want = before(round, kind, (t_rank - 1) * REG + AT + j);
          CHECK(got[j] == want, "%s round %d kind %d: read word %d is %lld, want %lld",
                t_flavor_names[f], round, kind, j, (long long)got[j], (long long)want);
        }
    }
  }
  free(src);
  free(got);
  MPI_Barrier(MPI_COMM_WORLD);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Group world, g_others, g_zero;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0;
  MPI_Group_incl(world, 1, &zero, &g_zero);
  MPI_Group_excl(world, 1, &zero, &g_others);
  MPI_Datatype vec;
  MPI_Type_vector(VBLOCKS, VLEN, VSTRIDE, MPI_INT64_T, &vec);
  MPI_Type_commit(&vec);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f, g_others, g_zero, vec);
  MPI_Type_free(&vec);
  MPI_Group_free(&g_others);
  MPI_Group_free(&g_zero);
  MPI_Group_free(&world);
  return t_finish("pscw_last_op");
}
