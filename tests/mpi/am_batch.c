/* Short puts and accumulates queued to one target travel together, in front of the request that
 * follows them (a batch). What must hold whatever the batching:
 *  - order: a put then an accumulate on the same elements, then a fetch-and-op or get that
 *    reads them, see each other in program order (the batch runs before its carrier);
 *  - data: chunks of every size around the batching limit (1 to 33 elements, 256 bytes being
 *    the largest batched) land byte for byte, next to operations that cannot be batched
 *    (derived target types, request-based puts);
 *  - atomicity: batched accumulates race other origins' single-element fetch-and-ops and
 *    compare-and-swaps on the same counters and lose nothing;
 *  - epochs: under fence, batched puts belong to the epoch they were issued in. */
#include "common.h"

enum { R = 600, C = 8, K = 400 };

static int64_t value(int o, int t, int i, int e) {
  return ((int64_t)o << 40) ^ ((int64_t)t << 32) ^ ((int64_t)i * 2654435761LL) ^ (e * 7919LL);
}

static const int sizes[] = {1, 2, 3, 8, 32, 33, 5, 1, 1, 16};

/* Origin `me` fills its slot at target t in epoch e: chunks of varying size, each put, every
 * third one then incremented by one per element, a fetch of an element now and then. Returns
 * how many fetches it made. */
static int fill_slot(MPI_Win win, int me, int t, int e, int64_t* src, int64_t* fetched,
                     int* fetched_at, MPI_Datatype every_other) {
  const MPI_Aint base = (MPI_Aint)me * R;
  static const int64_t zero = 0;
  int nf = 0, k = 0;
  for (int i = 0; i < R;) {
    int n = sizes[k % 10];
    if (i + n > R) n = R - i;
    for (int j = 0; j < n; j++)
      src[i + j] = value(me, t, i + j, e);
    if (n >= 32 && (k / 10) % 2 == 1) {
      /* Not batchable: strided target types write the even elements, then the odd ones. */
      for (int j = 0; j < 16; j++) /* origin buffers stay untouched until the flush */
        src[R + i + j] = src[i + 2 * j];
      MPI_OK(MPI_Put(&src[R + i], 16, MPI_INT64_T, t, base + i, 1, every_other, win));
      MPI_OK(MPI_Put(&src[i + 1], 1, every_other, t, base + i + 1, 1, every_other, win));
      if (n == 33)
        MPI_OK(MPI_Put(&src[i + 32], 1, MPI_INT64_T, t, base + i + 32, 1, MPI_INT64_T, win));
    } else if (k % 17 == 5) {
      MPI_Request req;
      MPI_OK(MPI_Rput(&src[i], n, MPI_INT64_T, t, base + i, n, MPI_INT64_T, win, &req));
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      MPI_OK(MPI_Put(&src[i], n, MPI_INT64_T, t, base + i, n, MPI_INT64_T, win));
    }
    if (k % 3 == 0) {
      static const int64_t ones[33] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                       1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
      MPI_OK(MPI_Accumulate(ones, n, MPI_INT64_T, t, base + i, n, MPI_INT64_T, MPI_SUM, win));
    }
    if (k % 4 == 1) {
      /* Reads the chunk's last element after everything queued before it. */
      fetched_at[nf] = i + n - 1;
      if (k % 8 == 1)
        MPI_OK(MPI_Fetch_and_op(&zero, &fetched[nf], MPI_INT64_T, t, base + i + n - 1, MPI_NO_OP,
                                win));
      else
        MPI_OK(MPI_Get(&fetched[nf], 1, MPI_INT64_T, t, base + i + n - 1, 1, MPI_INT64_T, win));
      nf++;
    }
    i += n;
    k++;
  }
  return nf;
}

/* What fill_slot leaves at element i. */
static int64_t expected(int o, int t, int i, int e) {
  int k = 0;
  for (int at = 0; at < R; k++) {
    int n = sizes[k % 10];
    if (at + n > R) n = R - at;
    if (i < at + n) return value(o, t, i, e) + (k % 3 == 0 ? 1 : 0);
    at += n;
  }
  return -1;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const MPI_Aint elems = (MPI_Aint)t_size * R + C;
  int64_t* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(elems * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, (size_t)elems * 8);
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(16, 1, 2, MPI_INT64_T, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  int64_t* src = malloc(sizeof(int64_t) * 2 * R);
  int64_t* got = malloc(sizeof(int64_t) * R);
  int64_t fetched[R];
  int fetched_at[R];
  MPI_Barrier(MPI_COMM_WORLD);

  /* Order and data, passive target: every origin fills its slot at every target. */
  for (int e = 0; e < 3; e++) {
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int s = 0; s < t_size; s++) {
      const int t = (t_rank + s) % t_size;
      const int nf = fill_slot(win, t_rank, t, e, src, fetched, fetched_at, every_other);
      MPI_OK(MPI_Win_flush(t, win));
      for (int f = 0; f < nf; f++)
        CHECK(fetched[f] == expected(t_rank, t, fetched_at[f], e),
              "epoch %d target %d: fetch of element %d saw %lld, want %lld", e, t, fetched_at[f],
              (long long)fetched[f], (long long)expected(t_rank, t, fetched_at[f], e));
      MPI_OK(MPI_Get(got, R, MPI_INT64_T, t, (MPI_Aint)t_rank * R, R, MPI_INT64_T, win));
      MPI_OK(MPI_Win_flush(t, win));
      for (int i = 0; i < R; i++)
        CHECK(got[i] == expected(t_rank, t, i, e), "epoch %d target %d element %d: %lld, want %lld",
              e, t, i, (long long)got[i], (long long)expected(t_rank, t, i, e));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    for (int o = 0; o < t_size; o++)
      for (int i = 0; i < R; i++)
        CHECK(mem[(size_t)o * R + i] == expected(o, t_rank, i, e),
              "epoch %d: my element %d from origin %d: %lld, want %lld", e, i, o,
              (long long)mem[(size_t)o * R + i], (long long)expected(o, t_rank, i, e));
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* Atomicity: batched accumulates (4 elements and 1) against other origins' single-element
   * fetch-and-ops and compare-and-swaps on the same counters. */
  const MPI_Aint cnt = (MPI_Aint)t_size * R;
  const int64_t ones[4] = {1, 1, 1, 1}, one = 1;
  int64_t last[64] = {0};
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int i = 0; i < K; i++) {
    for (int s = 0; s < t_size; s++) {
      const int t = (t_rank + s) % t_size;
      MPI_OK(MPI_Accumulate(ones, 4, MPI_INT64_T, t, cnt, 4, MPI_INT64_T, MPI_SUM, win));
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, cnt + 4, 1, MPI_INT64_T, MPI_SUM, win));
      if ((i + t_rank) % 5 == 0) {
        /* Results land by the next flush, so their buffer must outlive this block. */
        static int64_t old[2];
        MPI_OK(MPI_Fetch_and_op(&one, &old[0], MPI_INT64_T, t, cnt + 4, MPI_SUM, win));
        MPI_OK(MPI_Fetch_and_op(&one, &old[1], MPI_INT64_T, t, cnt + 5, MPI_SUM, win));
      }
      if ((i + t_rank) % 7 == 0) {
        /* Increment counter 6 by compare-and-swap until it takes. */
        int64_t seen = 0, want, prev;
        MPI_OK(MPI_Fetch_and_op(&one, &seen, MPI_INT64_T, t, cnt + 6, MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(t, win));
        for (;;) {
          want = seen + 1;
          MPI_OK(MPI_Compare_and_swap(&want, &seen, &prev, MPI_INT64_T, t, cnt + 6, win));
          MPI_OK(MPI_Win_flush(t, win));
          if (prev == seen) break;
          seen = prev;
        }
        CHECK(prev >= last[t % 64], "counter 6 at %d went back: %lld after %lld", t,
              (long long)prev, (long long)last[t % 64]);
        last[t % 64] = prev;
      }
    }
    if (i % 50 == 49) MPI_OK(MPI_Win_flush_all(win));
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  {
    int64_t fives = 0, sevens = 0;
    for (int o = 0; o < t_size; o++)
      for (int i = 0; i < K; i++) {
        fives += (i + o) % 5 == 0;
        sevens += (i + o) % 7 == 0;
      }
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    for (int j = 0; j < 4; j++)
      CHECK(mem[cnt + j] == (int64_t)K * t_size, "counter %d: %lld, want %lld", j,
            (long long)mem[cnt + j], (long long)K * t_size);
    CHECK(mem[cnt + 4] == (int64_t)K * t_size + fives, "counter 4: %lld, want %lld",
          (long long)mem[cnt + 4], (long long)(K * t_size + fives));
    CHECK(mem[cnt + 5] == fives, "counter 5: %lld, want %lld", (long long)mem[cnt + 5],
          (long long)fives);
    CHECK(mem[cnt + 6] == sevens, "counter 6: %lld, want %lld", (long long)mem[cnt + 6],
          (long long)sevens);
    MPI_OK(MPI_Win_unlock(t_rank, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Fence epochs: small puts of each epoch land in that epoch only. */
  int64_t* fsrc = malloc(sizeof(int64_t) * (size_t)t_size * R);
  MPI_OK(MPI_Win_fence(0, win));
  for (int e = 0; e < 4; e++) {
    for (int s = 0; s < t_size; s++) {
      const int t = (t_rank + s) % t_size;
      for (int i = 0; i < R; i += 2) {
        fsrc[(size_t)t * R + i] = value(t_rank, t, i, 100 + e);
        MPI_OK(MPI_Put(&fsrc[(size_t)t * R + i], 1, MPI_INT64_T, t, (MPI_Aint)t_rank * R + i, 1,
                       MPI_INT64_T, win));
      }
    }
    MPI_OK(MPI_Win_fence(0, win));
    for (int o = 0; o < t_size; o++)
      for (int i = 0; i < R; i += 2)
        CHECK(mem[(size_t)o * R + i] == value(o, t_rank, i, 100 + e),
              "fence epoch %d: element %d from origin %d: %lld", e, i, o,
              (long long)mem[(size_t)o * R + i]);
    MPI_OK(MPI_Win_fence(0, win));
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  MPI_OK(MPI_Type_free(&every_other));
  free(src);
  free(fsrc);
  free(got);
  MPI_OK(MPI_Win_free(&win));
  return t_finish("am_batch");
}
