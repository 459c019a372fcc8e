/* Every datatype constructor osprey watches (contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct, subarray, resized) in variants that differ from their
 * neighbours in one argument each, built fresh around every operation: a type built like one
 * decoded before shares that decoding from its birth, so a variant taken for another would
 * move its data to the other's places. Three passes over all variants (the first decodes, the
 * next ones match), each a put and then a get toward the right neighbour under fence, every
 * flavor. What the host's own MPI_Pack/MPI_Unpack make of the same type is the reference:
 * every byte of the target slot (the holes keep their sentinel) and of the get's buffer is
 * checked. */
#include "common.h"

enum { SLOT = 2048, MID = 768, PASSES = 3, SENTINEL = 0xEE };

enum ctor {
  CONTIG,
  VECTOR,
  HVECTOR,
  INDEXED,
  HINDEXED,
  IBLOCK,
  HIBLOCK,
  STRUCT,
  SUBARRAY,
  RESIZED
};

/* One variant: a constructor, its numbers (their meaning per constructor, in make()) and the
 * count of elements each operation moves. */
struct variant {
  enum ctor ctor;
  int a[4];
  MPI_Datatype old;
  int count;
};

static const struct variant variants[] = {
    {CONTIG, {5}, MPI_INT, 1},           {CONTIG, {6}, MPI_INT, 1},
    {CONTIG, {5}, MPI_DOUBLE, 1},        {CONTIG, {5}, MPI_INT, 2},
    {VECTOR, {4, 2, 5}, MPI_INT, 1},     {VECTOR, {5, 2, 5}, MPI_INT, 1},
    {VECTOR, {4, 3, 5}, MPI_INT, 1},     {VECTOR, {4, 2, 6}, MPI_INT, 1},
    {VECTOR, {4, 2, -3}, MPI_INT, 1},    {VECTOR, {4, 2, 5}, MPI_DOUBLE, 1},
    {VECTOR, {4, 2, 5}, MPI_INT, 2},     {HVECTOR, {3, 2, 12}, MPI_INT, 1},
    {HVECTOR, {3, 2, 20}, MPI_INT, 1},   {HVECTOR, {3, 3, 20}, MPI_INT, 1},
    {HVECTOR, {2, 2, 12}, MPI_INT, 1},   {HVECTOR, {3, 2, -16}, MPI_INT, 1},
    {HVECTOR, {3, 2, 12}, MPI_SHORT, 1}, {INDEXED, {0, 0}, MPI_INT, 1},
    {INDEXED, {1, 0}, MPI_INT, 1},       {INDEXED, {0, 1}, MPI_INT, 1},
    {INDEXED, {0, 0}, MPI_DOUBLE, 1},    {HINDEXED, {0, 0}, MPI_INT, 1},
    {HINDEXED, {1, 0}, MPI_INT, 1},      {HINDEXED, {0, 1}, MPI_INT, 1},
    {IBLOCK, {2, 0}, MPI_INT, 1},        {IBLOCK, {3, 0}, MPI_INT, 1},
    {IBLOCK, {2, 1}, MPI_INT, 1},        {HIBLOCK, {2, 0}, MPI_INT, 1},
    {HIBLOCK, {3, 0}, MPI_INT, 1},       {HIBLOCK, {2, 1}, MPI_INT, 1},
    {STRUCT, {8, 0}, MPI_DOUBLE, 1},     {STRUCT, {16, 0}, MPI_DOUBLE, 1},
    {STRUCT, {8, 1}, MPI_DOUBLE, 1},     {STRUCT, {8, 0}, MPI_INT64_T, 1},
    {SUBARRAY, {3, 4, 0}, MPI_INT, 1},   {SUBARRAY, {4, 3, 0}, MPI_INT, 1},
    {SUBARRAY, {3, 4, 1}, MPI_INT, 1},   {SUBARRAY, {3, 4, 2}, MPI_INT, 1},
    {RESIZED, {0, 8}, MPI_INT, 3},       {RESIZED, {0, 12}, MPI_INT, 3},
    {RESIZED, {-4, 8}, MPI_INT, 3},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

static MPI_Datatype make(const struct variant* v) {
  static const int lens[2][3] = {{1, 2, 3}, {1, 3, 2}}, displs[2][3] = {{0, 4, 9}, {0, 5, 9}};
  MPI_Datatype t;
  const int* a = v->a;
  switch (v->ctor) {
    case CONTIG:
      MPI_OK(MPI_Type_contiguous(a[0], v->old, &t));
      break;
    case VECTOR:
      MPI_OK(MPI_Type_vector(a[0], a[1], a[2], v->old, &t));
      break;
    case HVECTOR:
      MPI_OK(MPI_Type_create_hvector(a[0], a[1], a[2], v->old, &t));
      break;
    case INDEXED:
      MPI_OK(MPI_Type_indexed(3, lens[a[0]], displs[a[1]], v->old, &t));
      break;
    case HINDEXED: {
      MPI_Aint bytes[3];
      for (int i = 0; i < 3; i++)
        bytes[i] = displs[a[1]][i] * 4;
      MPI_OK(MPI_Type_create_hindexed(3, lens[a[0]], bytes, v->old, &t));
      break;
    }
    case IBLOCK:
      MPI_OK(MPI_Type_create_indexed_block(3, a[0], displs[a[1]], v->old, &t));
      break;
    case HIBLOCK: {
      MPI_Aint bytes[3];
      for (int i = 0; i < 3; i++)
        bytes[i] = displs[a[1]][i] * 4;
      MPI_OK(MPI_Type_create_hindexed_block(3, a[0], bytes, v->old, &t));
      break;
    }
    case STRUCT: {
      const int blens[2] = {1 + a[1], 2};
      const MPI_Aint at[2] = {0, a[0]};
      const MPI_Datatype types[2] = {MPI_INT, v->old};
      MPI_OK(MPI_Type_create_struct(2, blens, at, types, &t));
      break;
    }
    case SUBARRAY: {
      const int sizes[2] = {6, 8}, subs[2] = {a[0], a[1]};
      const int starts[2] = {a[2] == 1 ? 2 : 1, a[2] == 1 ? 1 : 2};
      MPI_OK(MPI_Type_create_subarray(2, sizes, subs, starts,
                                      a[2] == 2 ? MPI_ORDER_FORTRAN : MPI_ORDER_C, v->old, &t));
      break;
    }
    default:
      MPI_OK(MPI_Type_create_resized(v->old, a[0], a[1], &t));
      break;
  }
  MPI_OK(MPI_Type_commit(&t));
  return t;
}

/* The origin's bytes for (variant, pass): every byte of its slot differs from the sentinel. */
static void fill_origin(unsigned char* img, int origin, int v, int pass) {
  for (int i = 0; i < SLOT; i++) {
    unsigned char b = (unsigned char)(i * 7 + origin * 31 + v * 13 + pass * 101);
    img[i] = b == SENTINEL ? 0x11 : b;
  }
}

/* What `count` elements of t at MID of a sentinel slot hold after a transfer from img (also at
 * MID), as the host's own pack and unpack place them. */
static void expected(unsigned char* out, const unsigned char* img, MPI_Datatype t, int count) {
  int size = 0, pos = 0;
  MPI_OK(MPI_Pack_size(count, t, MPI_COMM_SELF, &size));
  unsigned char* packed = malloc((size_t)size);
  MPI_OK(MPI_Pack(img + MID, count, t, packed, size, &pos, MPI_COMM_SELF));
  memset(out, SENTINEL, SLOT);
  const int n = pos;
  pos = 0;
  MPI_OK(MPI_Unpack(packed, n, &pos, out + MID, count, t, MPI_COMM_SELF));
  free(packed);
}

static void check_fits(MPI_Datatype t, int count, int v) {
  MPI_Aint lb, extent, tlb, text;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &tlb, &text);
  CHECK(tlb >= -MID && tlb + (count - 1) * extent + text <= SLOT - MID,
        "variant %d does not fit its slot", v);
}

static void check_bytes(const unsigned char* got, const unsigned char* want, const char* what,
                        int f, int pass, int v) {
  for (int i = 0; i < SLOT; i++)
    CHECK(got[i] == want[i],
          "%s, flavor %s, pass %d, variant %d (constructor %d): byte %d is %d, want %d", what,
          t_flavor_names[f], pass, v, variants[v].ctor, i - MID, got[i], want[i]);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
  unsigned char *img = malloc(SLOT), *want = malloc(SLOT), *got = malloc(SLOT);
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, SLOT, 1, MPI_COMM_WORLD)) continue;
    const MPI_Aint at = t_disp(&w, right, MID, 1);
    for (int pass = 0; pass < PASSES; pass++)
      for (int v = 0; v < NVARIANTS; v++) {
        const struct variant* var = &variants[v];
        memset(w.base, SENTINEL, SLOT);
        MPI_OK(MPI_Win_fence(0, w.win));
        fill_origin(img, t_rank, v, pass);
        MPI_Datatype t = make(var);
        check_fits(t, var->count, v);
        MPI_OK(MPI_Put(img + MID, var->count, t, right, at, var->count, t, w.win));
        MPI_OK(MPI_Type_free(&t)); /* before the fence: the put keeps what it needs */
        MPI_OK(MPI_Win_fence(0, w.win));
        fill_origin(img, left, v, pass);
        t = make(var);
        expected(want, img, t, var->count);
        check_bytes((unsigned char*)w.base, want, "put", f, pass, v);
        /* The right neighbour's slot now holds this rank's bytes where t covers it. */
        memset(got, SENTINEL, SLOT);
        MPI_OK(MPI_Get(got + MID, var->count, t, right, at, var->count, t, w.win));
        MPI_OK(MPI_Type_free(&t));
        MPI_OK(MPI_Win_fence(0, w.win));
        fill_origin(img, t_rank, v, pass);
        t = make(var);
        expected(want, img, t, var->count);
        MPI_OK(MPI_Type_free(&t));
        check_bytes(got, want, "get", f, pass, v);
      }
    t_win_free(&w);
  }
  free(img);
  free(want);
  free(got);
  return t_finish("type_constructors");
}
