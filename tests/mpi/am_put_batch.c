/* Puts batched by reference on the message path: puts of dense data from 1 KiB to 1 MiB queued
 * to one target ride in the request that follows them as records without data, and their data
 * follows in one message the target scatters into place. What must hold whatever the batching:
 *  - data: every origin puts into its slot at every target pieces of every size around the
 *    limits (the largest copied into a request, the eager limit, the largest by reference, the
 *    batch payload's size) at distinct places, next to puts that are not batched (strided
 *    origin or target types, request-based puts, small ones copied into the request); every
 *    byte of every slot is checked, and the gap bytes between the places must stay untouched
 *    (data scattered one piece off shows there);
 *  - order: a put of the same bytes twice in one epoch leaves the second one's data (the
 *    target receives overlapping places into a buffer and copies them in order); an
 *    accumulate counter after the puts and a get_accumulate reading it see them in order;
 *  - origin buffers: after flush_local the puts' data is sent, and the buffers are refilled
 *    with garbage before the epoch ends;
 *  - every synchronization: fence, lock (shared and exclusive), lock_all with flush,
 *    flush_local then flush, flush_all, request-based puts, PSCW;
 *  - errors: on a dynamic window, a put to detached memory among good ones is reported (at the
 *    call or at the flush) and the good ones land. */
#include "common.h"

enum {
  NPUTS = 48, /* puts per origin, target and epoch */
  GAP = 16,   /* sentinel bytes between places */
  MODES = 8,
};

static const int sizes[] = {1000,  1024, 1025,  1536,  2048,   4095,  4096,  4097,
                            8192,  8,    16383, 16384, 20000,  33,    65536, 65537,
                            70000, 1200, 3000,  5000,  100000, 12000, 1500,  2500};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };
static const char* const mode_names[MODES] = {"fence",    "lock shared", "lock exclusive",
                                              "flush",    "flush_local", "flush_all",
                                              "requests", "pscw"};

/* One put: where it lands in the origin's slot at the target, how many bytes, how. */
struct put {
  size_t at;
  int n;
  int strided_origin, strided_target, request, again;
};

static size_t slot_bytes(void) {
  size_t s = 0;
  for (int k = 0; k < NPUTS; k++)
    s += (size_t)sizes[k % NSIZES] * 2 + GAP;
  return s + (1u << 20) + 2 * GAP + 64;
}

static unsigned char sentinel(size_t i) {
  return (unsigned char)(0x5A ^ (i * 13));
}

/* The byte a put writes at offset i of its place. */
static unsigned char value(int o, int t, int e, int k, int i) {
  return t_pattern(o, t, (size_t)k * 7919 + (size_t)i, e);
}

/* The puts origin o makes at target t in epoch e. */
static void plan(struct put* p, int o, int t, int e) {
  size_t at = GAP;
  for (int k = 0; k < NPUTS; k++) {
    int n = sizes[(k + o + t + e) % NSIZES];
    if (k == NPUTS / 2) n = 1 << 20; /* one put of the largest size by reference */
    p[k].n = n;
    p[k].strided_origin = k % 9 == 4 && n % 4 == 0;
    p[k].strided_target = !p[k].strided_origin && k % 13 == 7 && n % 4 == 0;
    p[k].request = k % 10 == 3;
    p[k].again = k % 11 == 6; /* put twice: the second data must stay */
    p[k].at = at;
    at += (size_t)n * (p[k].strided_target ? 2 : 1) + GAP;
  }
}

/* What origin o's put k leaves at byte i of its place (a strided target: every other 4 bytes). */
static int expected(const struct put* p, int o, int t, int e, int k, size_t i, unsigned char* v) {
  if (p[k].strided_target) {
    if (i % 8 >= 4) return 0;
    *v = value(o, t, e, k, (int)(i / 8 * 4 + i % 8));
    return 1;
  }
  *v = value(o, t, e, k, (int)i);
  return 1;
}

/* Fills the origin buffer of put k (strided origin: its data every other 4 bytes). */
static void fill_origin(unsigned char* b, const struct put* p, int o, int t, int e, int k,
                        int garbage) {
  for (int i = 0; i < p[k].n; i++) {
    const unsigned char v = garbage ? (unsigned char)~value(o, t, e, k, i) : value(o, t, e, k, i);
    if (p[k].strided_origin)
      b[i / 4 * 8 + i % 4] = v;
    else
      b[i] = v;
  }
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const size_t slot = slot_bytes();
  const MPI_Aint bytes = (MPI_Aint)slot * t_size;
  unsigned char* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Group world, everyone;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_excl(world, 0, NULL, &everyone); /* every rank, self included */
  struct put* plans = malloc(sizeof(struct put) * NPUTS * (size_t)t_size);
  /* Origin buffers: each put its own (a strided origin takes twice its bytes); the data of the
   * first of two puts to one place comes from one buffer for all. */
  unsigned char** bufs = malloc(sizeof(unsigned char*) * NPUTS * (size_t)t_size);
  unsigned char* first = malloc(1u << 20);
  memset(first, 0xEE, 1u << 20);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * NPUTS * (size_t)t_size);
  int64_t one = 1;

  for (int e = 0; e < MODES; e++) {
    const int mode = e;
    for (size_t i = 0; i < (size_t)bytes; i++)
      mem[i] = sentinel(i);
    for (int t = 0; t < t_size; t++) {
      memset(mem + (size_t)t * slot + slot - 8, 0, 8); /* the counter of origin t here */
      plan(plans + (size_t)t * NPUTS, t_rank, t, e);
      for (int k = 0; k < NPUTS; k++) {
        bufs[t * NPUTS + k] = malloc((size_t)plans[(size_t)t * NPUTS + k].n * 2);
        fill_origin(bufs[t * NPUTS + k], plans + (size_t)t * NPUTS, t_rank, t, e, k, 0);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (mode == 0) MPI_OK(MPI_Win_fence(0, win));
    if (mode >= 3 && mode <= 6) MPI_OK(MPI_Win_lock_all(0, win));
    if (mode == 7) {
      MPI_OK(MPI_Win_post(everyone, 0, win));
      MPI_OK(MPI_Win_start(everyone, 0, win));
    }
    int64_t counts[64];
    int nreq = 0;
    for (int s = 0; s < t_size; s++) {
      const int t = (t_rank + s) % t_size;
      const struct put* p = plans + (size_t)t * NPUTS;
      const MPI_Aint base = (MPI_Aint)t_rank * (MPI_Aint)slot;
      if (mode == 1 || mode == 2)
        MPI_OK(MPI_Win_lock(mode == 1 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, win));
      for (int k = 0; k < NPUTS; k++) {
        unsigned char* b = bufs[t * NPUTS + k];
        const int n = p[k].n;
        const MPI_Aint where = base + (MPI_Aint)p[k].at;
        if (p[k].again) /* first other bytes to the same place: the second put must win */
          MPI_OK(MPI_Put(first, n, MPI_BYTE, t, where, n, MPI_BYTE, win));
        if (p[k].strided_origin) {
          MPI_Datatype v;
          MPI_OK(MPI_Type_vector(n / 4, 4, 8, MPI_BYTE, &v));
          MPI_OK(MPI_Type_commit(&v));
          MPI_OK(MPI_Put(b, 1, v, t, where, n, MPI_BYTE, win));
          MPI_OK(MPI_Type_free(&v));
        } else if (p[k].strided_target) {
          MPI_Datatype v;
          MPI_OK(MPI_Type_vector(n / 4, 4, 8, MPI_BYTE, &v));
          MPI_OK(MPI_Type_commit(&v));
          MPI_OK(MPI_Put(b, n, MPI_BYTE, t, where, 1, v, win));
          MPI_OK(MPI_Type_free(&v));
        } else if (mode == 6 && p[k].request) {
          MPI_OK(MPI_Rput(b, n, MPI_BYTE, t, where, n, MPI_BYTE, win, &reqs[nreq++]));
        } else {
          MPI_OK(MPI_Put(b, n, MPI_BYTE, t, where, n, MPI_BYTE, win));
        }
      }
      /* Accumulate order: the counter after the puts, read back after it. */
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, base + (MPI_Aint)slot - 8, 1, MPI_INT64_T,
                            MPI_SUM, win));
      counts[t] = -1;
      MPI_OK(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &counts[t], 1, MPI_INT64_T, t,
                                base + (MPI_Aint)slot - 8, 1, MPI_INT64_T, MPI_NO_OP, win));
      if (mode == 1 || mode == 2) MPI_OK(MPI_Win_unlock(t, win));
      if (mode == 3) MPI_OK(MPI_Win_flush(t, win));
      if (mode == 4) {
        /* Local completion: the buffers may be reused at once. */
        MPI_OK(MPI_Win_flush_local(t, win));
        for (int k = 0; k < NPUTS; k++)
          fill_origin(bufs[t * NPUTS + k], p, t_rank, t, e, k, 1);
        MPI_OK(MPI_Win_flush(t, win));
      }
      if (mode >= 1 && mode <= 4)
        CHECK(counts[t] == 1, "%s, target %d: get_accumulate saw %lld, want 1", mode_names[mode], t,
              (long long)counts[t]);
    }
    if (mode == 6) {
      for (int i = 0; i < nreq; i++)
        MPI_OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
      MPI_OK(MPI_Win_flush_all(win));
    }
    if (mode == 5) MPI_OK(MPI_Win_flush_all(win));
    if (mode >= 3 && mode <= 6) MPI_OK(MPI_Win_unlock_all(win));
    if (mode == 0) MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (mode == 7) {
      MPI_OK(MPI_Win_complete(win));
      MPI_OK(MPI_Win_wait(win));
    }
    for (int t = 0; t < t_size; t++)
      CHECK(counts[t] == 1, "%s, target %d: get_accumulate saw %lld, want 1", mode_names[mode], t,
            (long long)counts[t]);

    /* Every byte of every origin's slot here. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
    struct put p[NPUTS];
    for (int o = 0; o < t_size; o++) {
      plan(p, o, t_rank, e);
      const size_t base = (size_t)o * slot;
      size_t next = 0;
      for (int k = 0; k < NPUTS; k++) {
        for (size_t i = next; i < p[k].at; i++)
          CHECK(mem[base + i] == sentinel(base + i),
                "%s: gap byte %zu before put %d of origin %d touched", mode_names[mode], i, k, o);
        const size_t span = (size_t)p[k].n * (p[k].strided_target ? 2 : 1);
        for (size_t i = 0; i < span; i++) {
          const size_t at = base + p[k].at + i;
          unsigned char want = sentinel(at);
          expected(p, o, t_rank, e, k, i, &want);
          CHECK(mem[at] == want, "%s: put %d (%d B%s%s%s) of origin %d byte %zu: %d, want %d",
                mode_names[mode], k, p[k].n, p[k].strided_origin ? ", strided origin" : "",
                p[k].strided_target ? ", strided target" : "", p[k].again ? ", put twice" : "", o,
                i, mem[at], want);
        }
        next = p[k].at + span;
      }
      for (size_t i = next; i < slot - 8; i++)
        CHECK(mem[base + i] == sentinel(base + i), "%s: gap byte %zu at the end of origin %d",
              mode_names[mode], i, o);
      int64_t c;
      memcpy(&c, mem + base + slot - 8, 8);
      CHECK(c == 1, "%s: counter of origin %d is %lld, want 1", mode_names[mode], o, (long long)c);
    }
    MPI_OK(MPI_Win_unlock(t_rank, win));
    for (int k = 0; k < NPUTS * t_size; k++)
      free(bufs[k]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_OK(MPI_Win_free(&win));

  /* Errors: a put to detached memory among good ones, on a dynamic window. */
  MPI_Win dyn;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  MPI_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
  enum { PIECE = 4096, NDYN = 32, DYN = PIECE * NDYN };
  unsigned char* region = malloc(DYN);
  unsigned char* gone = malloc(DYN);
  memset(region, 0, DYN);
  MPI_OK(MPI_Win_attach(dyn, region, DYN));
  MPI_OK(MPI_Win_attach(dyn, gone, DYN));
  MPI_Aint addrs[2], all[128];
  MPI_Get_address(region, &addrs[0]);
  MPI_Get_address(gone, &addrs[1]);
  MPI_Allgather(addrs, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, gone));
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (t_rank + 1) % t_size;
  unsigned char* out = malloc(DYN);
  t_fill(out, DYN, t_rank, right, 91);
  MPI_OK(MPI_Win_lock_all(0, dyn));
  int bad_rc = MPI_SUCCESS;
  for (int k = 0; k < NDYN; k++) {
    if (k == NDYN / 2) {
      bad_rc = MPI_Put(out + k * PIECE, PIECE, MPI_BYTE, right, all[2 * right + 1] + k * PIECE,
                       PIECE, MPI_BYTE, dyn);
      continue;
    }
    MPI_OK(MPI_Put(out + k * PIECE, PIECE, MPI_BYTE, right, all[2 * right] + k * PIECE, PIECE,
                   MPI_BYTE, dyn));
  }
  const int flush_rc = MPI_Win_flush(right, dyn);
  int cls = -1;
  MPI_Error_class(bad_rc != MPI_SUCCESS ? bad_rc : flush_rc, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "put to detached memory: rc %d, flush rc %d (class %d)", bad_rc,
        flush_rc, cls);
  MPI_OK(MPI_Win_unlock_all(dyn));
  MPI_Barrier(MPI_COMM_WORLD);
  const int left = (t_rank + t_size - 1) % t_size;
  unsigned char* want = malloc(DYN);
  t_fill(want, DYN, left, t_rank, 91);
  for (int k = 0; k < NDYN; k++)
    for (int i = 0; i < PIECE; i++) {
      const unsigned char w = k == NDYN / 2 ? 0 : want[k * PIECE + i];
      CHECK(region[k * PIECE + i] == w, "dynamic put %d byte %d: %d, want %d", k, i,
            region[k * PIECE + i], w);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(dyn, region));
  MPI_OK(MPI_Win_free(&dyn));
  free(region);
  free(gone);
  free(out);
  free(want);

  MPI_Group_free(&everyone);
  MPI_Group_free(&world);
  free(bufs);
  free(first);
  free(plans);
  free(reqs);
  return t_finish("am_put_batch");
}
