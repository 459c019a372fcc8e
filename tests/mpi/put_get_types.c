/* Every window flavor x every predefined datatype x put and get, over several fence epochs.
 * Each origin owns a slot in every target's window; every data byte is verified at the target
 * (puts) and at the origin (gets). */
#include "common.h"

enum { COUNT = 5, EPOCHS = 3 };

static void run(enum t_flavor f, const struct t_type* ty) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(ty->type, &lb, &ext);
  const MPI_Aint slot = COUNT * ext;
  struct t_win w;
  if (!t_win_create(&w, f, slot * t_size, 1, MPI_COMM_WORLD)) return;
  char* out = malloc((size_t)(slot * t_size));
  char* back = malloc((size_t)(slot * t_size));
  char* want = malloc((size_t)slot);
  memset(w.base, 0, (size_t)(slot * t_size));

  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
  for (int e = 0; e < EPOCHS; e++) {
    for (int t = 0; t < t_size; t++) {
      t_fill(out + t * slot, (size_t)slot, t_rank, t, e);
      MPI_OK(MPI_Put(out + t * slot, COUNT, ty->type, t, t_disp(&w, t, t_rank * slot, 1), COUNT,
                     ty->type, w.win));
    }
    MPI_OK(MPI_Win_fence(0, w.win));
    for (int o = 0; o < t_size; o++) {
      t_fill(want, (size_t)slot, o, t_rank, e);
      CHECK(t_same_data(w.base + o * slot, want, COUNT, ty->type),
            "%s %s epoch %d: put from rank %d wrong", t_flavor_names[f], ty->name, e, o);
    }
    memset(back, 0, (size_t)(slot * t_size));
    for (int t = 0; t < t_size; t++)
      MPI_OK(MPI_Get(back + t * slot, COUNT, ty->type, t, t_disp(&w, t, t_rank * slot, 1), COUNT,
                     ty->type, w.win));
    MPI_OK(MPI_Win_fence(0, w.win));
    for (int t = 0; t < t_size; t++)
      CHECK(t_same_data(back + t * slot, out + t * slot, COUNT, ty->type),
            "%s %s epoch %d: get from rank %d wrong", t_flavor_names[f], ty->name, e, t);
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  t_win_free(&w);
  free(out);
  free(back);
  free(want);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++)
    for (int i = 0; i < T_NTYPES; i++)
      if (t_types[i].type != MPI_DATATYPE_NULL) run((enum t_flavor)f, &t_types[i]);
  return t_finish("put_get_types");
}
