/* Each accumulate is applied to its target as a whole: writers replace records of identical
 * words with multi-element accumulates (MPI_BYTE and MPI_INT64_T, 16 and 64 bytes, plain,
 * request-based and get_accumulate), readers fetch whole records with MPI_NO_OP
 * get_accumulates, and no read may see two writes mixed. Meanwhile single-element
 * fetch_and_ops count into another record of the same target. The standard only promises
 * atomicity per basic element; MPICH and Open MPI give more, and programs rely on it. Every
 * rank writes and reads rank 0's records, so on mixed windows node-local and remote origins
 * race. */
#include "common.h"

enum { ITERS = 1500, NREC = 2 };

static const struct {
  MPI_Datatype type;
  int bytes;
} kinds[] = {{MPI_BYTE, 16}, {MPI_BYTE, 64}, {MPI_INT64_T, 16}, {MPI_INT64_T, 64}};

/* Record k of kind c starts at this byte offset; the counter word follows all records. */
static MPI_Aint rec_off(int c, int k) {
  return (MPI_Aint)(c * NREC + k) * 64;
}
static const MPI_Aint kCounter = 4 * NREC * 64;

static void check_record(const int64_t* r, int words, const char* what, int iter) {
  for (int i = 1; i < words; i++)
    CHECK(r[i] == r[0], "%s iter %d: torn record, word %d is %lld, word 0 is %lld", what, iter, i,
          (long long)r[i], (long long)r[0]);
}

static void run(enum t_flavor f) {
  struct t_win w;
  if (!t_win_create(&w, f, kCounter + 8, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, (size_t)kCounter + 8);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_lock_all(0, w.win));
  int64_t rec[8], old[8], got[8];
  int64_t fetched = 0;
  for (int it = 0; it < ITERS; it++) {
    const int c = it % 4, k = (it / 4 + t_rank) % NREC;
    const int words = kinds[c].bytes / 8;
    const int count = kinds[c].type == MPI_BYTE ? kinds[c].bytes : words;
    const MPI_Aint at = t_disp(&w, 0, rec_off(c, k), 1);
    for (int i = 0; i < words; i++)
      rec[i] = (int64_t)t_rank * 1000000 + it + 1;
    switch (it % 3) {
      case 0:
        MPI_OK(MPI_Accumulate(rec, count, kinds[c].type, 0, at, count, kinds[c].type, MPI_REPLACE,
                              w.win));
        break;
      case 1: {
        MPI_Request r;
        MPI_OK(MPI_Raccumulate(rec, count, kinds[c].type, 0, at, count, kinds[c].type, MPI_REPLACE,
                               w.win, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        break;
      }
      default:
        MPI_OK(MPI_Get_accumulate(rec, count, kinds[c].type, old, count, kinds[c].type, 0, at,
                                  count, kinds[c].type, MPI_REPLACE, w.win));
        MPI_OK(MPI_Win_flush(0, w.win));
        check_record(old, words, "replaced record", it);
        break;
    }
    MPI_OK(MPI_Win_flush(0, w.win));
    /* Read the other record of the same kind, which other ranks are writing. */
    const MPI_Aint other = t_disp(&w, 0, rec_off(c, (k + 1) % NREC), 1);
    MPI_OK(MPI_Get_accumulate(NULL, 0, kinds[c].type, got, count, kinds[c].type, 0, other, count,
                              kinds[c].type, MPI_NO_OP, w.win));
    const int64_t one = 1;
    MPI_OK(MPI_Fetch_and_op(&one, &fetched, MPI_INT64_T, 0, t_disp(&w, 0, kCounter, 1), MPI_SUM,
                            w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    check_record(got, words, t_flavor_names[f], it);
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    const int64_t* counter = (const int64_t*)(w.base + kCounter);
    CHECK(*counter == (int64_t)ITERS * t_size, "%s: counter %lld, want %lld", t_flavor_names[f],
          (long long)*counter, (long long)ITERS * t_size);
    for (int c = 0; c < 4; c++)
      for (int k = 0; k < NREC; k++)
        check_record((const int64_t*)(w.base + rec_off(c, k)), kinds[c].bytes / 8, "final", 0);
  }
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("acc_whole");
}
