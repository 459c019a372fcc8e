/* Small puts and gets toward node peers' private memory (create and dynamic windows) wait in a
 * per-target queue until the synchronization that completes them. Every rank puts thousands
 * of operations of mixed sizes (1 byte to past the queue limit, more than the queue holds)
 * into its own slot at every target (scribbling over the origin buffer right after each call
 * toward a node peer: MPI-3.1 11.3 forbids that before local completion, but osprey's node
 * paths copy the data at once and programs come to rely on it; the message path keeps the
 * buffer until the operation is issued, as the standard allows),
 * gets a pattern each target wrote into its own memory, and accumulates into a counter of the
 * same target in between; then it completes them with one synchronization: flush, flush_all,
 * flush_local, unlock, unlock_all, fence, PSCW complete, or request completion. Targets check
 * every byte of every slot as soon as the synchronization promises it (after a flush, while
 * the lock_all epoch is still open), origins every byte they got. */
#include "common.h"
#include "sync_driver.h"

enum { SLOT = 48 * 1024, SRC = 4096, SMALL = 2500, ACCS = 5 };

/* Byte layout of each rank's window: a put slot per origin, then a region the owner fills for
 * gets, then one int64 counter per origin. */
static MPI_Aint put_off(int o) {
  return (MPI_Aint)o * SLOT;
}
static MPI_Aint src_off(void) {
  return (MPI_Aint)t_size * SLOT;
}
static MPI_Aint ctr_off(int o) {
  return src_off() + SRC + 8 * (MPI_Aint)o;
}
static MPI_Aint win_bytes(void) {
  return ctr_off(t_size);
}

/* The sizes of the put sequence: SMALL puts of 4 bytes (more than a queue's 1024 entries),
 * then sizes around the queue limit (8 KiB) until the slot is full. */
static int put_size(int k, MPI_Aint at) {
  static const int mixed[] = {1, 3, 8, 16, 64, 200, 1000, 8192, 9000, 5, 4096, 8193, 7};
  int n = k < SMALL ? 4 : mixed[(k - SMALL) % 13];
  if (at + n > SLOT) n = (int)(SLOT - at);
  return n;
}

/* Whether rank t is reached through node memory (osprey copies put data at the call). */
static int* near;
static void find_near(void) {
  near = calloc((size_t)t_size, sizeof(int));
  const char* tr = getenv("OSPREY_TRANSPORT");
  if (tr && !strcmp(tr, "am")) return;
  MPI_Comm node = t_node_comm(MPI_COMM_WORLD);
  MPI_Group g, wg;
  MPI_Comm_group(node, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int n;
  MPI_Group_size(g, &n);
  for (int i = 0; i < n; i++) {
    int w;
    MPI_Group_translate_ranks(g, 1, &i, wg, &w);
    near[w] = 1;
  }
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Comm_free(&node);
}

/* buf: SLOT bytes per target; toward a node peer one small buffer is reused for every put. */
static void put_one(const struct t_win* w, enum t_sync s, int t, MPI_Aint at, int n, int e,
                    unsigned char* buf, MPI_Request* req) {
  buf += near[t] ? 0 : (size_t)t * SLOT + (size_t)at;
  for (int i = 0; i < n; i++)
    buf[i] = t_pattern(t_rank, t, (size_t)(at + i), e);
  const MPI_Aint d = t_disp(w, t, put_off(t_rank) + at, 1);
  if (s == T_REQUEST && n % 2) {
    MPI_OK(MPI_Rput(buf, n, MPI_BYTE, t, d, n, MPI_BYTE, w->win, req));
    MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE)); /* locally complete: buf is free again */
  } else {
    MPI_OK(MPI_Put(buf, n, MPI_BYTE, t, d, n, MPI_BYTE, w->win));
  }
  if (near[t]) memset(buf, 0xEE, (size_t)n);
}

/* Everything this origin does toward target t in one epoch; gets land in got[t]. */
static void issue(const struct t_win* w, enum t_sync s, int t, int e, unsigned char* buf,
                  unsigned char* got, MPI_Request* reqs, int* nreq) {
  const int64_t one = 1;
  MPI_Aint at = 0;
  for (int k = 0; at < SLOT; k++) {
    const int n = put_size(k, at);
    MPI_Request r;
    put_one(w, s, t, at, n, e, buf, &r);
    at += n;
    if (k % 500 == 0 && k / 500 < ACCS)
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, t_disp(w, t, ctr_off(t_rank), 1), 1,
                            MPI_INT64_T, MPI_SUM, w->win));
    if (k % 3 == 0 && k / 3 < SRC / 8) {
      /* 8-byte gets of the target's whole region (37 is prime to SRC / 8), scrambled. */
      const int g = (k / 3 * 37) % (SRC / 8);
      const MPI_Aint d = t_disp(w, t, src_off() + 8 * g, 1);
      if (s == T_REQUEST)
        MPI_OK(MPI_Rget(got + 8 * g, 8, MPI_BYTE, t, d, 8, MPI_BYTE, w->win, &reqs[(*nreq)++]));
      else
        MPI_OK(MPI_Get(got + 8 * g, 8, MPI_BYTE, t, d, 8, MPI_BYTE, w->win));
    }
  }
}

static void check_gets(const unsigned char* got, int t, int e, const char* what) {
  for (int i = 0; i < SRC; i++) {
    const unsigned char want = t_pattern(t, t, (size_t)i, e + 1000);
    CHECK(got[i] == want, "%s: byte %d got from rank %d is %d, want %d", what, i, t, got[i], want);
  }
}

/* The target checks every origin's slot and counter in its own memory. */
static void check_target(const struct t_win* w, int e, const char* what) {
  for (int o = 0; o < t_size; o++) {
    const unsigned char* slot = (const unsigned char*)w->base + put_off(o);
    for (MPI_Aint i = 0; i < SLOT; i++)
      CHECK(slot[i] == t_pattern(o, t_rank, (size_t)i, e), "%s: slot of rank %d byte %ld is %d",
            what, o, (long)i, slot[i]);
    int64_t c;
    memcpy(&c, w->base + ctr_off(o), 8);
    CHECK(c == ACCS, "%s: counter of rank %d is %lld, want %d", what, o, (long long)c, ACCS);
  }
}

/* What the callbacks of one epoch need. */
struct epoch {
  const struct t_win* w;
  enum t_sync s;
  int e;
  unsigned char* buf; /* put data: see put_one */
  unsigned char* got; /* SRC bytes per target */
  const char* what;
};

static void epoch_issue(void* ctx, int t, struct t_requests* reqs) {
  struct epoch* ep = ctx;
  issue(ep->w, ep->s, t, ep->e, ep->buf, ep->got + (size_t)t * SRC, reqs->req, &reqs->n);
}

static void epoch_check_gets(void* ctx, int t) {
  const struct epoch* ep = ctx;
  check_gets(ep->got + (size_t)t * SRC, t, ep->e, ep->what);
}

static void epoch_check_target(void* ctx) {
  const struct epoch* ep = ctx;
  check_target(ep->w, ep->e, ep->what);
}

static void run(enum t_flavor f, enum t_sync s, int e) {
  struct t_win w;
  t_sync_window(&w, f, win_bytes(), src_off(), SRC, e);

  char what[96];
  snprintf(what, sizeof what, "%s/%s", t_flavor_names[f], t_sync_names[s]);
  struct epoch ep = {&w, s, e, malloc((size_t)t_size * SLOT), calloc((size_t)t_size, SRC), what};
  struct t_requests reqs = {malloc(sizeof(MPI_Request) * (size_t)t_size * SRC), 0};
  const struct t_sync_test test = {epoch_issue, epoch_check_gets, epoch_check_target, &ep, 0};
  t_sync_epoch(w.win, s, &test, &reqs);
  free(reqs.req);
  free(ep.got);
  free(ep.buf);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  find_near();
  int e = 0;
  const enum t_flavor flavors[] = {T_CREATE, T_DYNAMIC, T_ALLOCATE};
  for (int fi = 0; fi < 3; fi++)
    for (int s = 0; s < T_NSYNC; s++)
      run(flavors[fi], (enum t_sync)s, e++);
  free(near);
  return t_finish("cma_batch");
}
