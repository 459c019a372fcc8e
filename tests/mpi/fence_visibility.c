/* What one rank put in a fence epoch, every rank sees in the next, whichever way it reads:
 * each epoch every rank puts a fresh pattern into its slot at every target; then every rank
 * gets every target's whole window (all origins' slots) and checks it. Even epochs read in
 * the next fence epoch; odd ones end with MPI_MODE_NOSUCCEED and read under lock_all, whose
 * requests carry no fence epoch: a target must not serve them before the operations of the
 * epoch it left are applied there. In mixed windows a node peer reads a target's memory
 * directly while the puts of other nodes' origins reach that target as messages, so the fence
 * must not let the node peer go before the target applied them. Slots of 16 and of 1024 words:
 * the larger ones travel apart from their requests on the message path. */
#include "common.h"

enum { EPOCHS = 200 };

static uint64_t word(int e, int origin, int target, int i) {
  return ((uint64_t)(e + 1) << 40) | ((uint64_t)origin << 24) | ((uint64_t)target << 12) |
         (uint64_t)i;
}

static void check(const uint64_t* got, int words, enum t_flavor f, int e) {
  for (int t = 0; t < t_size; t++)
    for (int o = 0; o < t_size; o++)
      for (int i = 0; i < words; i++) {
        const uint64_t have = got[(t * t_size + o) * words + i];
        CHECK(have == word(e, o, t, i),
              "%s, %d words, epoch %d: target %d slot of origin %d word %d: %llx != %llx",
              t_flavor_names[f], words, e, t, o, i, (unsigned long long)have,
              (unsigned long long)word(e, o, t, i));
      }
}

static void run(enum t_flavor f, int words) {
  const MPI_Aint slot = words * (MPI_Aint)sizeof(uint64_t);
  const MPI_Aint bytes = slot * t_size;
  struct t_win w;
  if (!t_win_create(&w, f, bytes, 1, MPI_COMM_WORLD)) return;
  uint64_t* out = malloc((size_t)bytes);
  uint64_t* got = malloc((size_t)(bytes * t_size));
  const int n = t_size * words;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
  for (int e = 0; e < EPOCHS; e++) {
    for (int t = 0; t < t_size; t++) {
      uint64_t* o = out + t * words;
      for (int i = 0; i < words; i++)
        o[i] = word(e, t_rank, t, i);
      MPI_OK(MPI_Put(o, words, MPI_UINT64_T, t, t_disp(&w, t, t_rank * slot, 1), words,
                     MPI_UINT64_T, w.win));
    }
    if (e % 2 == 0) {
      MPI_OK(MPI_Win_fence(0, w.win));
      for (int t = 0; t < t_size; t++)
        MPI_OK(
            MPI_Get(got + t * n, n, MPI_UINT64_T, t, t_disp(&w, t, 0, 1), n, MPI_UINT64_T, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      check(got, words, f, e);
    } else {
      MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
      MPI_OK(MPI_Win_lock_all(0, w.win));
      for (int t = 0; t < t_size; t++)
        MPI_OK(
            MPI_Get(got + t * n, n, MPI_UINT64_T, t, t_disp(&w, t, 0, 1), n, MPI_UINT64_T, w.win));
      MPI_OK(MPI_Win_unlock_all(w.win));
      check(got, words, f, e);
      MPI_Barrier(MPI_COMM_WORLD);  // everyone read before the next epoch's puts
      MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    }
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  t_win_free(&w);
  free(out);
  free(got);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    run((enum t_flavor)f, 16);
    run((enum t_flavor)f, 1024);
  }
  return t_finish("fence_visibility");
}
