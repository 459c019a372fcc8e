/* Many fence epochs on every flavor with every legal assertion: each epoch every rank puts a
 * fresh pattern into its slot at every target (itself included) and gets back the previous
 * epoch's slot of its right neighbour; both are verified every epoch. */
#include "common.h"

enum { WORDS = 33, EPOCHS = 150 };

static const int asserts[] = {0, MPI_MODE_NOSTORE, MPI_MODE_NOPUT,
                              MPI_MODE_NOSTORE | MPI_MODE_NOPUT};

static void run(enum t_flavor f) {
  const MPI_Aint slot = WORDS * (MPI_Aint)sizeof(uint64_t);
  struct t_win w;
  if (!t_win_create(&w, f, slot * t_size, sizeof(uint64_t), MPI_COMM_WORLD)) return;
  const int du = f == T_DYNAMIC ? 1 : (int)sizeof(uint64_t);
  uint64_t* out = malloc((size_t)(slot * t_size));
  uint64_t* got = malloc((size_t)slot);
  const int right = (t_rank + 1) % t_size;

  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
  for (int e = 0; e < EPOCHS; e++) {
    for (int t = 0; t < t_size; t++) {
      uint64_t* o = out + t * WORDS;
      for (int i = 0; i < WORDS; i++)
        o[i] = ((uint64_t)e << 40) | ((uint64_t)t_rank << 20) | ((uint64_t)t << 8) | (uint64_t)i;
      MPI_Aint off = t_rank * slot;
      MPI_OK(MPI_Put(o, WORDS, MPI_UINT64_T, t, f == T_DYNAMIC ? t_disp(&w, t, off, 1) : off / du,
                     WORDS, MPI_UINT64_T, w.win));
    }
    /* Alternate the assertions a rank may give independently. */
    MPI_OK(MPI_Win_fence(asserts[e % 4] & MPI_MODE_NOSTORE, w.win));
    const uint64_t* mine = (const uint64_t*)w.base;
    for (int o = 0; o < t_size; o++)
      for (int i = 0; i < WORDS; i++) {
        const uint64_t want =
            ((uint64_t)e << 40) | ((uint64_t)o << 20) | ((uint64_t)t_rank << 8) | (uint64_t)i;
        CHECK(mine[o * WORDS + i] == want, "%s epoch %d slot %d word %d: %llx != %llx",
              t_flavor_names[f], e, o, i, (unsigned long long)mine[o * WORDS + i],
              (unsigned long long)want);
      }
    /* Read back what I put at my right neighbour in this epoch. */
    MPI_Aint off = t_rank * slot;
    MPI_OK(MPI_Get(got, WORDS, MPI_UINT64_T, right,
                   f == T_DYNAMIC ? t_disp(&w, right, off, 1) : off / du, WORDS, MPI_UINT64_T,
                   w.win));
    MPI_OK(MPI_Win_fence(
        asserts[(e + 1) % 4] & (MPI_MODE_NOSTORE | MPI_MODE_NOPUT) & ~MPI_MODE_NOPUT, w.win));
    CHECK(memcmp(got, out + right * WORDS, (size_t)slot) == 0, "%s epoch %d: get wrong",
          t_flavor_names[f], e);
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  /* Epochs separated by NOSUCCEED/NOPRECEDE pairs. */
  for (int e = 0; e < 20; e++) {
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    uint64_t v = (uint64_t)e * 1000 + (uint64_t)t_rank;
    MPI_Aint off = t_rank * slot;
    MPI_OK(MPI_Put(&v, 1, MPI_UINT64_T, right,
                   f == T_DYNAMIC ? t_disp(&w, right, off, 1) : off / du, 1, MPI_UINT64_T, w.win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, w.win));
    const int left = (t_rank + t_size - 1) % t_size;
    CHECK(((uint64_t*)w.base)[left * WORDS] == (uint64_t)e * 1000 + (uint64_t)left,
          "%s NOPRECEDE/NOSUCCEED epoch %d wrong", t_flavor_names[f], e);
  }
  t_win_free(&w);
  free(out);
  free(got);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    run((enum t_flavor)f);
  return t_finish("fence_epochs");
}
