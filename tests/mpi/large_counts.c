/* Large counts (MPI-4 `_c` entry points):
 *   overflow  counts whose bytes or span overflow 64 bits fail with MPI_ERR_COUNT and write
 *             nothing, on every operation and window flavor
 *   types     datatypes built with the large-count constructors move the right bytes
 *   big       one put and one get of 2^31 + 4096 bytes (more elements and bytes than an int
 *             holds), where the machine has the memory for it */
#include <stdint.h>
#include <sys/mman.h>

#include "common.h"

#if MPI_VERSION < 4
int main(int argc, char** argv) {
  t_init(&argc, &argv);
  if (t_rank == 0) printf("large_counts: the host MPI has no large-count calls\n");
  return t_finish("large_counts");
}
#else

enum { WORDS = 64 };

static int right, left;

/* Every operation with a count whose bytes wrap to 8 (2^61 + 1 eight-byte elements), one whose
 * bytes overflow outright, and a negative one: MPI_ERR_COUNT, and the target keeps its data. */
static void overflow(struct t_win* w) {
  const int du = w->flavor == T_DYNAMIC ? 1 : 8;
  const MPI_Aint d = t_disp(w, right, 0, du);
  const MPI_Count wraps = ((MPI_Count)1 << 61) + 1, huge = INT64_MAX / 4, negative = -1;
  const MPI_Count counts[] = {wraps, huge, negative};
  int64_t buf[WORDS], res[WORDS];
  for (int i = 0; i < WORDS; i++)
    buf[i] = res[i] = -1;
  for (int i = 0; i < WORDS; i++)
    ((int64_t*)w->base)[i] = 1000 * t_rank + i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_lock_all(0, w->win));
  for (int k = 0; k < 3; k++) {
    const MPI_Count c = counts[k];
    MPI_Request rq = MPI_REQUEST_NULL;
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Put_c(buf, c, MPI_INT64_T, right, d, c, MPI_INT64_T, w->win));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Put_c(buf, 1, MPI_INT64_T, right, d, c, MPI_INT64_T, w->win));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Get_c(res, c, MPI_INT64_T, right, d, c, MPI_INT64_T, w->win));
    EXPECT_CLASS(MPI_ERR_COUNT,
                 MPI_Rput_c(buf, c, MPI_INT64_T, right, d, c, MPI_INT64_T, w->win, &rq));
    EXPECT_CLASS(MPI_ERR_COUNT,
                 MPI_Rget_c(res, c, MPI_INT64_T, right, d, c, MPI_INT64_T, w->win, &rq));
    EXPECT_CLASS(MPI_ERR_COUNT,
                 MPI_Accumulate_c(buf, c, MPI_INT64_T, right, d, c, MPI_INT64_T, MPI_SUM, w->win));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Raccumulate_c(buf, c, MPI_INT64_T, right, d, c, MPI_INT64_T,
                                                  MPI_REPLACE, w->win, &rq));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Get_accumulate_c(buf, c, MPI_INT64_T, res, c, MPI_INT64_T,
                                                     right, d, c, MPI_INT64_T, MPI_SUM, w->win));
    EXPECT_CLASS(MPI_ERR_COUNT,
                 MPI_Rget_accumulate_c(buf, 1, MPI_INT64_T, res, 1, MPI_INT64_T, right, d, c,
                                       MPI_INT64_T, MPI_NO_OP, w->win, &rq));
    CHECK(rq == MPI_REQUEST_NULL, "a refused call returned a request");
  }
  /* A derived type whose one element is 2^33 bytes: 2^31 of them overflow. */
  MPI_Datatype big;
  MPI_OK(MPI_Type_contiguous_c((MPI_Count)1 << 30, MPI_INT64_T, &big));
  MPI_OK(MPI_Type_commit(&big));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Put_c(buf, (MPI_Count)1 << 33, MPI_BYTE, right, d,
                                        (MPI_Count)1 << 31, big, w->win));
  MPI_OK(MPI_Type_free(&big));
  MPI_OK(MPI_Win_flush_all(w->win));
  MPI_OK(MPI_Win_unlock_all(w->win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < WORDS; i++)
    CHECK(((int64_t*)w->base)[i] == 1000 * t_rank + i, "overflow %s: word %d changed to %lld",
          t_flavor_names[w->flavor], i, (long long)((int64_t*)w->base)[i]);
  for (int i = 0; i < WORDS; i++)
    CHECK(res[i] == -1, "overflow %s: result word %d written", t_flavor_names[w->flavor], i);
}

/* Types from the large-count constructors: put, get back and accumulate. */
static void large_count_types(struct t_win* w) {
  const int du = w->flavor == T_DYNAMIC ? 1 : 8;
  MPI_Datatype types[8];
  const char* names[8];
  int n = 0;
  const MPI_Count bl3[3] = {2, 1, 3}, idx3[3] = {0, 4, 9};
  const MPI_Aint hidx3[3] = {0, 32, 72};
  MPI_OK(MPI_Type_contiguous_c(5, MPI_INT64_T, &types[n]));
  names[n++] = "contiguous_c";
  MPI_OK(MPI_Type_vector_c(4, 2, 3, MPI_INT64_T, &types[n]));
  names[n++] = "vector_c";
  MPI_OK(MPI_Type_create_hvector_c(3, 1, 40, MPI_INT64_T, &types[n]));
  names[n++] = "hvector_c";
  MPI_OK(MPI_Type_indexed_c(3, bl3, idx3, MPI_INT64_T, &types[n]));
  names[n++] = "indexed_c";
  MPI_OK(MPI_Type_create_hindexed_c(3, bl3, hidx3, MPI_INT64_T, &types[n]));
  names[n++] = "hindexed_c";
  MPI_OK(MPI_Type_create_indexed_block_c(3, 2, idx3, MPI_INT64_T, &types[n]));
  names[n++] = "indexed_block_c";
  const MPI_Count sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
  MPI_OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT64_T, &types[n]));
  names[n++] = "subarray_c";
  MPI_Datatype inner;
  MPI_OK(MPI_Type_vector_c(2, 1, 2, MPI_INT64_T, &inner));
  MPI_OK(MPI_Type_create_resized_c(inner, 0, 40, &types[n]));
  MPI_OK(MPI_Type_free(&inner));
  names[n++] = "resized_c";

  for (int k = 0; k < n; k++) {
    MPI_OK(MPI_Type_commit(&types[k]));
    MPI_Count lb, extent;
    MPI_OK(MPI_Type_get_extent_c(types[k], &lb, &extent));
    const MPI_Count count = 2;
    CHECK(lb + count * extent <= WORDS * 8, "%s: too large for the test window", names[k]);
    int64_t src[WORDS], back[WORDS], mine[WORDS];
    for (int i = 0; i < WORDS; i++)
      src[i] = 100000 * (k + 1) + 100 * t_rank + i, back[i] = 0;
    memset(w->base, 0, WORDS * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, w->win));
    MPI_OK(
        MPI_Put_c(src, count, types[k], right, t_disp(w, right, 0, du), count, types[k], w->win));
    MPI_OK(MPI_Win_flush(right, w->win));
    MPI_OK(
        MPI_Get_c(back, count, types[k], right, t_disp(w, right, 0, du), count, types[k], w->win));
    MPI_OK(MPI_Win_flush(right, w->win));
    CHECK(t_same_data(src, back, (int)count, types[k]), "%s %s: data read back differs", names[k],
          t_flavor_names[w->flavor]);
    MPI_OK(MPI_Accumulate_c(src, count, types[k], right, t_disp(w, right, 0, du), count, types[k],
                            MPI_SUM, w->win));
    MPI_OK(MPI_Win_unlock_all(w->win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* What left wrote into this rank, then added once more: twice its values at the type's
     * bytes, zero elsewhere. */
    int64_t sent[WORDS], twice[WORDS];
    for (int i = 0; i < WORDS; i++)
      sent[i] = 100000 * (k + 1) + 100 * left + i, twice[i] = 0;
    memcpy(mine, w->base, sizeof mine);
    /* twice: 2 * sent at the type's positions (packed through the type and unpacked). */
    int64_t doubled[WORDS];
    for (int i = 0; i < WORDS; i++)
      doubled[i] = 2 * sent[i];
    int psize = 0, pos = 0;
    MPI_Pack_size((int)count, types[k], MPI_COMM_SELF, &psize);
    char* packed = malloc((size_t)psize);
    MPI_Pack(doubled, (int)count, types[k], packed, psize, &pos, MPI_COMM_SELF);
    pos = 0;
    MPI_Unpack(packed, psize, &pos, twice, (int)count, types[k], MPI_COMM_SELF);
    free(packed);
    for (int i = 0; i < WORDS; i++)
      CHECK(mine[i] == twice[i], "%s %s: word %d is %lld, want %lld", names[k],
            t_flavor_names[w->flavor], i, (long long)mine[i], (long long)twice[i]);
    MPI_OK(MPI_Type_free(&types[k]));
  }
}

static uint8_t big_pattern(size_t i) {
  return (uint8_t)((i * 131u) ^ (i >> 20) ^ (i >> 29));
}

static long mem_available_gib(void) {
  FILE* f = fopen("/proc/meminfo", "r");
  char line[256];
  long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb >> 20;
}

/* Rank 0 puts 2^31 + 4096 bytes into rank 1 and reads them back. */
static void big_transfer(void) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 4096;
  long gib = t_rank == 0 ? mem_available_gib() : 0;
  MPI_Bcast(&gib, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (gib < 8) {
    if (t_rank == 0) printf("large_counts: big transfer skipped, %ld GiB available\n", gib);
    return;
  }
  char* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(t_rank == 1 ? n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (t_rank == 0) {
    /* In huge pages where the kernel gives them on request: 2 GiB of 4 KiB page faults took
     * most of this test's 13 s here. */
    const size_t huge = (size_t)2 << 20, bytes = ((size_t)n + huge - 1) / huge * huge;
    uint64_t* buf = aligned_alloc(huge, bytes);
    CHECK(buf, "no memory for the origin buffer");
    madvise(buf, bytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < (size_t)n / 8; i++)
      buf[i] = big_pattern(i);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    MPI_OK(MPI_Put_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(1, win));
    memset(buf, 0, (size_t)n);
    MPI_OK(MPI_Get_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    MPI_OK(MPI_Win_unlock(1, win));
    for (size_t i = 0; i < (size_t)n / 8; i++)
      CHECK(buf[i] == big_pattern(i), "big get: word %zu is %llx, want %llx", i,
            (unsigned long long)buf[i], (unsigned long long)big_pattern(i));
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 1) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    const uint64_t* got = (const uint64_t*)base;
    for (size_t i = 0; i < (size_t)n / 8; i++)
      CHECK(got[i] == big_pattern(i), "big put: word %zu is %llx, want %llx", i,
            (unsigned long long)got[i], (unsigned long long)big_pattern(i));
    MPI_OK(MPI_Win_unlock(1, win));
  }
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  right = (t_rank + 1) % t_size;
  left = (t_rank + t_size - 1) % t_size;
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    if (!t_win_create(&w, (enum t_flavor)f, WORDS * 8, 8, MPI_COMM_WORLD)) continue;
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    overflow(&w);
    large_count_types(&w);
    t_win_free(&w);
  }
  big_transfer();
  return t_finish("large_counts");
}
#endif
