/* Gets of one epoch whose origin ranges overlap (a bandwidth benchmark reading many times into
 * one buffer): where the message path batches them and the host would scatter the reply, the
 * overlapping pieces would make an erroneous receive datatype, so the reply is copied instead.
 * Every get here reads the target's bytes at the same offsets as its origin offset, so every
 * overlapping byte must hold the target's pattern whatever order the pieces land in; every byte
 * is checked, on every flavor, with flush and with fence. */
#include "common.h"

enum {
  PIECE = 4096, /* bytes of each get */
  STEP = 512,   /* origin and target offset between gets: the gets overlap */
  NGETS = 32,   /* gets per target and epoch */
  SPAN = (NGETS - 1) * STEP + PIECE,
  SAME = 8, /* more gets, all into the same PIECE bytes */
};

static void check_span(const unsigned char* buf, size_t n, int t, int e, const char* what) {
  for (size_t i = 0; i < n; i++)
    CHECK(buf[i] == t_pattern(0, t, i, e), "%s: target %d byte %zu is %d, want %d", what, t, i,
          buf[i], t_pattern(0, t, i, e));
}

static void issue(const struct t_win* w, unsigned char* buf, int t) {
  for (int k = 0; k < NGETS; k++)
    MPI_OK(MPI_Get(buf + k * STEP, PIECE, MPI_BYTE, t, t_disp(w, t, k * STEP, 1), PIECE, MPI_BYTE,
                   w->win));
  for (int k = 0; k < SAME; k++)
    MPI_OK(MPI_Get(buf + SPAN, PIECE, MPI_BYTE, t, t_disp(w, t, SPAN, 1), PIECE, MPI_BYTE, w->win));
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  unsigned char* buf = malloc((size_t)(SPAN + PIECE) * (size_t)t_size);
  CHECK(buf != NULL, "no memory");
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, SPAN + PIECE, 1, MPI_COMM_WORLD)) continue;
    for (int e = 0; e < 2; e++) {
      MPI_OK(MPI_Win_fence(0, w.win));
      t_fill(w.base, SPAN + PIECE, 0, t_rank, e + f * 2);
      MPI_OK(MPI_Win_fence(0, w.win));
      memset(buf, 0, (size_t)(SPAN + PIECE) * (size_t)t_size);
      if (e == 0) {
        MPI_OK(MPI_Win_lock_all(0, w.win));
        for (int t = 0; t < t_size; t++) {
          issue(&w, buf + (size_t)t * (SPAN + PIECE), t);
          MPI_OK(MPI_Win_flush(t, w.win));
        }
        MPI_OK(MPI_Win_unlock_all(w.win));
      } else {
        for (int t = 0; t < t_size; t++)
          issue(&w, buf + (size_t)t * (SPAN + PIECE), t);
        MPI_OK(MPI_Win_fence(0, w.win));
      }
      for (int t = 0; t < t_size; t++)
        check_span(buf + (size_t)t * (SPAN + PIECE), SPAN + PIECE, t, e + f * 2,
                   e ? "fence" : "flush");
    }
    MPI_OK(MPI_Win_fence(0, w.win));
    t_win_free(&w);
  }
  free(buf);
  return t_finish("am_get_same_buffer");
}
