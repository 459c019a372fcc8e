/* Gets batched on the message path: many gets of one epoch travel in one request and come back
 * in one reply, small ones copied, large batches gathered and scattered by the host. What must
 * hold whatever the batching:
 *  - data: every origin reads distinct ranges of every target's pattern area, of sizes around
 *    every limit (1 B to 1 MiB), into distinct places of one buffer, also through a strided
 *    origin type and a strided target type; every byte read is checked, and the bytes between
 *    the places must stay untouched (a reply scattered one piece off shows there);
 *  - mixed with puts and accumulates to the same target in the same epoch: the puts land byte
 *    for byte, and a get_accumulate after accumulates sees all of them (accumulate order);
 *  - every synchronization: fence, lock (shared and exclusive), lock_all with flush,
 *    flush_local or flush_all, request-based gets, PSCW; the pattern changes between epochs,
 *    so stale data shows;
 *  - errors: on a dynamic window, a get of detached memory among good ones is reported (at the
 *    call or at the flush) and the good ones still bring their data, also among gets large
 *    enough that their data comes in messages of their own. */
#include "common.h"

enum {
  AREA = 2 << 20,  /* pattern bytes of each target */
  SLOT = 16 << 10, /* put bytes of each origin at each target */
  NGETS = 160,     /* gets per origin, target and epoch */
  GAP = 8,         /* untouched bytes between the places gets write */
  ROUNDS = 1,
  MODES = 8,
};

static const int sizes[] = {1,    3,    8,     13,    64,    255,   256,   257,   1000,
                            1024, 1025, 2048,  4095,  4096,  4097,  8192,  8,     16,
                            24,   12,   16384, 20000, 40000, 65536, 65537, 100000};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };
static const char* const mode_names[MODES] = {"fence",    "lock shared", "lock exclusive",
                                              "flush",    "flush_local", "flush_all",
                                              "requests", "pscw"};

static unsigned char sentinel(size_t i) {
  return (unsigned char)(0xA5 ^ (i * 7));
}

/* One get: where it reads at the target, how many bytes, where it writes here, and how. */
struct get {
  MPI_Aint src;
  int n;
  size_t dst;
  int strided_origin, strided_target;
};

static uint64_t lcg(uint64_t* s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* The gets origin o makes at target t in epoch e, placed from `at` in its buffer; returns the
 * bytes of buffer they use. */
static size_t plan(struct get* g, int o, int t, int e, size_t at) {
  uint64_t s = (uint64_t)(o * 1000003 + t * 7919 + e * 104729 + 1);
  const size_t start = at;
  for (int k = 0; k < NGETS; k++) {
    int n = sizes[(k + o + e) % NSIZES];
    if (k == NGETS / 2) n = 1 << 20; /* one large get per epoch */
    g[k].n = n;
    g[k].src = (MPI_Aint)(lcg(&s) % (uint64_t)(AREA - n + 1));
    g[k].strided_origin = k % 7 == 3 && n % 4 == 0;
    g[k].strided_target = k % 11 == 5 && n % 4 == 0 && g[k].src + 2 * (MPI_Aint)n <= AREA;
    if (g[k].strided_origin && g[k].strided_target) g[k].strided_target = 0;
    g[k].dst = at;
    at += (size_t)n * (g[k].strided_origin ? 2 : 1) + GAP;
  }
  return at - start;
}

/* The byte at offset i of target t's pattern area in epoch e. */
static unsigned char area(int t, size_t i, int e) {
  return t_pattern(t, t, i, e);
}

/* Puts and accumulates of origin o into its slot at t, interleaved by the caller with gets:
 * the k-th of NPUTS chunks. */
enum { NPUTS = 24, CHUNK = SLOT / NPUTS / 8 * 8 };
static void issue_put(MPI_Win win, unsigned char* src, int64_t* ones, int o, int t, int k) {
  const MPI_Aint slot = AREA + (MPI_Aint)o * SLOT;
  static const int put_sizes[] = {8, 100, 512, 600, 1024, 7, CHUNK};
  const int n = put_sizes[k % 7] < CHUNK ? put_sizes[k % 7] : CHUNK;
  MPI_OK(MPI_Put(src + k * CHUNK, n, MPI_BYTE, t, slot + k * CHUNK, n, MPI_BYTE, win));
  /* Counter: the last 8 bytes of the slot, plus one per put. */
  MPI_OK(MPI_Accumulate(ones, 1, MPI_INT64_T, t, slot + SLOT - 8, 1, MPI_INT64_T, MPI_SUM, win));
}

static int put_bytes(int k) {
  static const int put_sizes[] = {8, 100, 512, 600, 1024, 7, CHUNK};
  return put_sizes[k % 7] < CHUNK ? put_sizes[k % 7] : CHUNK;
}

static void check_gets(const struct get* g, const unsigned char* buf, size_t used, int t, int e,
                       const char* mode) {
  /* Every byte of the span: data where a get wrote, the sentinel elsewhere. */
  size_t next = g[0].dst;
  for (int k = 0; k < NGETS; k++) {
    for (size_t i = next; i < g[k].dst; i++)
      CHECK(buf[i] == sentinel(i), "%s, target %d epoch %d: gap byte %zu before get %d touched",
            mode, t, e, i, k);
    const int n = g[k].n;
    if (g[k].strided_origin) {
      for (int i = 0; i < 2 * n; i++) {
        const size_t at = g[k].dst + (size_t)i;
        const unsigned char want =
            (i % 8) < 4 ? area(t, (size_t)g[k].src + (size_t)(i / 8 * 4 + i % 8), e) : sentinel(at);
        CHECK(buf[at] == want,
              "%s, target %d epoch %d: get %d (%d B, strided origin) byte %d: %d, want %d", mode, t,
              e, k, n, i, buf[at], want);
      }
      next = g[k].dst + 2 * (size_t)n;
    } else {
      for (int i = 0; i < n; i++) {
        const size_t from = g[k].strided_target ? (size_t)(i / 4 * 8 + i % 4) : (size_t)i;
        const unsigned char want = area(t, (size_t)g[k].src + from, e);
        CHECK(buf[g[k].dst + (size_t)i] == want,
              "%s, target %d epoch %d: get %d (%d B from %ld%s) byte %d: %d, want %d", mode, t, e,
              k, n, (long)g[k].src, g[k].strided_target ? ", strided target" : "", i,
              buf[g[k].dst + (size_t)i], want);
      }
      next = g[k].dst + (size_t)n;
    }
  }
  for (size_t i = next; i < g[0].dst + used; i++)
    CHECK(buf[i] == sentinel(i), "%s, target %d epoch %d: gap byte %zu at the end touched", mode, t,
          e, i);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const MPI_Aint bytes = AREA + (MPI_Aint)t_size * SLOT;
  unsigned char* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, (size_t)bytes);
  MPI_Group world, everyone;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_excl(world, 0, NULL, &everyone); /* every rank, self included */

  struct get* g = malloc(sizeof(struct get) * (size_t)NGETS * (size_t)t_size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)NGETS * (size_t)t_size);
  size_t span = 0;
  for (int k = 0; k < NSIZES; k++)
    span += (size_t)sizes[k] * 2 + GAP;
  span = (span * (NGETS / NSIZES + 1) + (2u << 20)) * (size_t)t_size;
  unsigned char* buf = malloc(span);
  unsigned char* src = malloc(SLOT);
  int64_t ones[1] = {1};

  for (int e = 0; e < ROUNDS * MODES; e++) {
    const int mode = e % MODES;
    /* The pattern of this epoch, then everyone reads it. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t_rank, 0, win));
    for (size_t i = 0; i < AREA; i++)
      mem[i] = area(t_rank, i, e);
    for (int o = 0; o < t_size; o++)
      memset(mem + AREA + (size_t)o * SLOT, 0, SLOT);
    MPI_OK(MPI_Win_unlock(t_rank, win));
    for (size_t i = 0; i < span; i++)
      buf[i] = sentinel(i);
    size_t at = 0;
    size_t used[64];
    for (int s = 0; s < t_size; s++) {
      struct get* gs = g + (size_t)s * NGETS;
      used[s] = plan(gs, t_rank, s, e, at);
      at += used[s];
      for (int k = 0; k < NGETS; k++) {
        types[(size_t)s * NGETS + k] = MPI_DATATYPE_NULL;
        if (gs[k].strided_origin || gs[k].strided_target) {
          MPI_OK(MPI_Type_vector(gs[k].n / 4, 4, 8, MPI_BYTE, &types[(size_t)s * NGETS + k]));
          MPI_OK(MPI_Type_commit(&types[(size_t)s * NGETS + k]));
        }
      }
    }
    CHECK(at <= span, "plan overflows the buffer: %zu > %zu", at, span);
    t_fill(src, SLOT, t_rank, 0, e);
    MPI_Barrier(MPI_COMM_WORLD);

    if (mode == 0) MPI_OK(MPI_Win_fence(0, win));
    if (mode >= 3 && mode <= 6) MPI_OK(MPI_Win_lock_all(0, win));
    if (mode == 7) {
      MPI_OK(MPI_Win_post(everyone, 0, win));
      MPI_OK(MPI_Win_start(everyone, 0, win));
    }
    /* Modes 1-4 and 6 complete each target's gets before the next target: checked at once;
     * the others when the epoch ends. */
    int64_t counts[64];
    for (int s = 0; s < t_size; s++) {
      const int t = (t_rank + s) % t_size;
      const struct get* gs = g + (size_t)t * NGETS;
      const MPI_Datatype* ty = types + (size_t)t * NGETS;
      if (mode == 1 || mode == 2)
        MPI_OK(MPI_Win_lock(mode == 1 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, win));
      /* Gets in three parts, with puts and accumulates to the same target between them. */
      for (int p = 0; p < 3; p++) {
        const int from = p * NGETS / 3, to = (p + 1) * NGETS / 3;
        for (int k = from; k < to; k++) {
          const int n = gs[k].n;
          unsigned char* d = buf + gs[k].dst;
          if (gs[k].strided_origin) {
            MPI_OK(MPI_Get(d, 1, ty[k], t, gs[k].src, n, MPI_BYTE, win));
          } else if (gs[k].strided_target) {
            MPI_OK(MPI_Get(d, n, MPI_BYTE, t, gs[k].src, 1, ty[k], win));
          } else if (mode == 6 && k % 5 == 0) {
            MPI_Request r;
            MPI_OK(MPI_Rget(d, n, MPI_BYTE, t, gs[k].src, n, MPI_BYTE, win, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++)
              CHECK(d[i] == area(t, (size_t)gs[k].src + (size_t)i, e),
                    "requests, target %d epoch %d: MPI_Rget %d byte %d after its wait", t, e, k, i);
          } else {
            MPI_OK(MPI_Get(d, n, MPI_BYTE, t, gs[k].src, n, MPI_BYTE, win));
          }
        }
        for (int k = p * NPUTS / 3; k < (p + 1) * NPUTS / 3; k++)
          issue_put(win, src, ones, t_rank, t, k);
      }
      /* Accumulate order: this sees every accumulate before it. */
      counts[t] = -1;
      MPI_OK(MPI_Get_accumulate(ones, 1, MPI_INT64_T, &counts[t], 1, MPI_INT64_T, t,
                                AREA + (MPI_Aint)t_rank * SLOT + SLOT - 8, 1, MPI_INT64_T,
                                MPI_NO_OP, win));
      if (mode == 1 || mode == 2) MPI_OK(MPI_Win_unlock(t, win));
      if (mode == 3 || mode == 6) MPI_OK(MPI_Win_flush(t, win));
      if (mode == 4) MPI_OK(MPI_Win_flush_local(t, win));
      if ((mode >= 1 && mode <= 4) || mode == 6) {
        CHECK(counts[t] == NPUTS, "%s, target %d epoch %d: get_accumulate saw %lld, want %d",
              mode_names[mode], t, e, (long long)counts[t], NPUTS);
        check_gets(gs, buf, used[t], t, e, mode_names[mode]);
      }
      if (mode == 4) MPI_OK(MPI_Win_flush(t, win)); /* the puts complete at the target too */
    }
    if (mode == 5) MPI_OK(MPI_Win_flush_all(win));
    if (mode >= 3 && mode <= 6) MPI_OK(MPI_Win_unlock_all(win));
    if (mode == 0) MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (mode == 7) {
      MPI_OK(MPI_Win_complete(win));
      MPI_OK(MPI_Win_wait(win));
    }
    for (int t = 0; t < t_size; t++) {
      CHECK(counts[t] == NPUTS, "%s, target %d epoch %d: get_accumulate saw %lld, want %d",
            mode_names[mode], t, e, (long long)counts[t], NPUTS);
      check_gets(g + (size_t)t * NGETS, buf, used[t], t, e, mode_names[mode]);
    }
    for (int k = 0; k < NGETS * t_size; k++)
      if (types[k] != MPI_DATATYPE_NULL) MPI_Type_free(&types[k]);

    /* The puts and counters at this rank, from every origin. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    for (int o = 0; o < t_size; o++) {
      const unsigned char* slot = mem + AREA + (size_t)o * SLOT;
      unsigned char want[SLOT];
      t_fill(want, SLOT, o, 0, e);
      for (int k = 0; k < NPUTS; k++)
        for (int i = 0; i < CHUNK; i++) {
          const unsigned char w = i < put_bytes(k) ? want[k * CHUNK + i] : 0;
          CHECK(slot[k * CHUNK + i] == w, "%s epoch %d: put %d of origin %d byte %d: %d, want %d",
                mode_names[mode], e, k, o, i, slot[k * CHUNK + i], w);
        }
      int64_t c;
      memcpy(&c, slot + SLOT - 8, 8);
      CHECK(c == NPUTS, "%s epoch %d: counter of origin %d is %lld, want %d", mode_names[mode], e,
            o, (long long)c, NPUTS);
    }
    MPI_OK(MPI_Win_unlock(t_rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_OK(MPI_Win_free(&win));

  /* Errors: a get of detached memory in the middle of good ones, on a dynamic window. */
  MPI_Win dyn;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  MPI_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
  enum { DYN = 4096 };
  unsigned char* region = malloc(DYN);
  unsigned char* gone = malloc(DYN);
  t_fill(region, DYN, t_rank, t_rank, 77);
  MPI_OK(MPI_Win_attach(dyn, region, DYN));
  MPI_OK(MPI_Win_attach(dyn, gone, DYN));
  MPI_Aint addrs[2], all[128];
  MPI_Get_address(region, &addrs[0]);
  MPI_Get_address(gone, &addrs[1]);
  MPI_Allgather(addrs, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, gone));
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (t_rank + 1) % t_size;
  unsigned char got[64][32];
  memset(got, 0, sizeof got);
  MPI_OK(MPI_Win_lock_all(0, dyn));
  int bad_rc = MPI_SUCCESS;
  unsigned char junk[32]; /* the failed get's buffer: it must live until the flush */
  for (int k = 0; k < 64; k++) {
    if (k == 31) {
      bad_rc = MPI_Get(junk, 32, MPI_BYTE, right, all[2 * right + 1], 32, MPI_BYTE, dyn);
      continue;
    }
    MPI_OK(MPI_Get(got[k], 32, MPI_BYTE, right, all[2 * right] + k * 32, 32, MPI_BYTE, dyn));
  }
  const int flush_rc = MPI_Win_flush(right, dyn);
  int cls = -1;
  MPI_Error_class(bad_rc != MPI_SUCCESS ? bad_rc : flush_rc, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "get of detached memory: rc %d, flush rc %d (class %d)", bad_rc,
        flush_rc, cls);
  MPI_OK(MPI_Win_unlock_all(dyn));
  unsigned char want[DYN];
  t_fill(want, DYN, right, right, 77);
  for (int k = 0; k < 64; k++)
    for (int i = 0; i < 32 && k != 31; i++)
      CHECK(got[k][i] == want[k * 32 + i], "dynamic get %d byte %d: %d, want %d", k, i, got[k][i],
            want[k * 32 + i]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, region));

  /* The same with gets large enough that their data comes in messages of their own (toward
   * another node, from 128 KiB). */
  enum { BIG = 128 << 10, NBIG = 6 };
  unsigned char* bregion = malloc((size_t)BIG * NBIG);
  unsigned char* bgone = malloc(BIG);
  t_fill(bregion, (size_t)BIG * NBIG, t_rank, t_rank, 78);
  MPI_OK(MPI_Win_attach(dyn, bregion, (MPI_Aint)BIG * NBIG));
  MPI_OK(MPI_Win_attach(dyn, bgone, BIG));
  MPI_Get_address(bregion, &addrs[0]);
  MPI_Get_address(bgone, &addrs[1]);
  MPI_Allgather(addrs, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, bgone));
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char* bgot = calloc((size_t)NBIG + 1, BIG);
  MPI_OK(MPI_Win_lock_all(0, dyn));
  bad_rc = MPI_SUCCESS;
  for (int k = 0; k <= NBIG; k++) {
    if (k == NBIG / 2) {
      bad_rc = MPI_Get(bgot + (size_t)NBIG * BIG, BIG, MPI_BYTE, right, all[2 * right + 1], BIG,
                       MPI_BYTE, dyn);
      continue;
    }
    const int j = k < NBIG / 2 ? k : k - 1;
    MPI_OK(MPI_Get(bgot + (size_t)j * BIG, BIG, MPI_BYTE, right, all[2 * right] + (MPI_Aint)j * BIG,
                   BIG, MPI_BYTE, dyn));
  }
  const int bflush_rc = MPI_Win_flush(right, dyn);
  MPI_Error_class(bad_rc != MPI_SUCCESS ? bad_rc : bflush_rc, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "large get of detached memory: rc %d, flush rc %d (class %d)",
        bad_rc, bflush_rc, cls);
  MPI_OK(MPI_Win_unlock_all(dyn));
  unsigned char* bwant = malloc((size_t)BIG * NBIG);
  t_fill(bwant, (size_t)BIG * NBIG, right, right, 78);
  for (size_t i = 0; i < (size_t)BIG * NBIG; i++)
    CHECK(bgot[i] == bwant[i], "large dynamic get byte %zu: %d, want %d", i, bgot[i], bwant[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, bregion));
  MPI_OK(MPI_Win_free(&dyn));
  free(bregion);
  free(bgone);
  free(bgot);
  free(bwant);
  free(region);
  free(gone);

  MPI_Group_free(&everyone);
  MPI_Group_free(&world);
  free(g);
  free(types);
  free(buf);
  free(src);
  return t_finish("am_get_batch");
}
