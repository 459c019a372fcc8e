/* Large puts and gets toward node peers' private memory (create and dynamic windows; allocate
 * as a control). Gets of any size wait in the per-target queue until the synchronization that
 * completes them, and neighbouring ones merge into one range: here every rank gets a region
 * of every target in pieces of 16 KiB (neighbours on both sides: one merged range), of
 * 24 KiB + 3 landing in reverse order at the origin (neighbours at the target only), one of
 * 1 MiB + 5, then 64 KiB pieces to the end, with small puts and gets in between; it puts a
 * slot of its own at every target in pieces of 1 byte to 700 KiB. Each synchronization in
 * turn completes them: flush, flush_all, flush_local, unlock, unlock_all, fence, PSCW complete,
 * or request completion. Origins check every byte they got when the synchronization promises
 * it, targets every byte of every slot. */
#include "common.h"
#include "sync_driver.h"

enum { SRCB = 2 * 1024 * 1024 + 4096 + 77, PUTB = 1024 * 1024 + 333, SMALLGET = 64 };

/* Window of each rank: a put slot per origin, then a region the owner fills for gets. */
static MPI_Aint put_off(int o) {
  return (MPI_Aint)o * PUTB;
}
static MPI_Aint src_off(void) {
  return (MPI_Aint)t_size * PUTB;
}
static MPI_Aint win_bytes(void) {
  return src_off() + SRCB;
}

/* The k-th get: `n` bytes from `at` in the target's region into `to` in the origin buffer;
 * returns 0 past the end. */
static int get_piece(int k, MPI_Aint* at, MPI_Aint* to, MPI_Aint* n) {
  const MPI_Aint odd = 24 * 1024 + 3, group = 8 * odd, big = 1024 * 1024 + 5;
  const MPI_Aint first = 32 * 16384;
  if (k < 32) {
    *n = 16384, *at = *to = (MPI_Aint)k * 16384;
  } else if (k < 40) {
    const int j = k - 32;
    *n = odd, *at = first + j * odd, *to = first + (7 - j) * odd;
  } else if (k == 40) {
    *n = big, *at = *to = first + group;
  } else {
    *at = *to = first + group + big + (MPI_Aint)(k - 41) * 65536;
    if (*at >= SRCB) return 0;
    *n = SRCB - *at < 65536 ? SRCB - *at : 65536;
  }
  return 1;
}

/* The sizes of the puts that fill a slot. */
static MPI_Aint put_size(int k, MPI_Aint at) {
  static const MPI_Aint sizes[] = {16385, 65536, 8192, 300007, 1, 700000, 17000, 24576};
  MPI_Aint n = sizes[k % 8];
  return at + n > PUTB ? PUTB - at : n;
}

static void issue(const struct t_win* w, enum t_sync s, int t, unsigned char* buf,
                  unsigned char* got, unsigned char* small, MPI_Request* reqs, int* nreq) {
  MPI_Aint at, to, n;
  for (int k = 0; get_piece(k, &at, &to, &n); k++) {
    const MPI_Aint d = t_disp(w, t, src_off() + at, 1);
    if (s == T_REQUEST)
      MPI_OK(
          MPI_Rget(got + to, (int)n, MPI_BYTE, t, d, (int)n, MPI_BYTE, w->win, &reqs[(*nreq)++]));
    else
      MPI_OK(MPI_Get(got + to, (int)n, MPI_BYTE, t, d, (int)n, MPI_BYTE, w->win));
    if (k % 10 == 5) /* a small get in between, of the region's last bytes */
      MPI_OK(MPI_Get(small, SMALLGET, MPI_BYTE, t, t_disp(w, t, src_off() + SRCB - SMALLGET, 1),
                     SMALLGET, MPI_BYTE, w->win));
  }
  at = 0;
  for (int k = 0; at < PUTB; k++) {
    n = put_size(k, at);
    const MPI_Aint d = t_disp(w, t, put_off(t_rank) + at, 1);
    if (s == T_REQUEST)
      MPI_OK(
          MPI_Rput(buf + at, (int)n, MPI_BYTE, t, d, (int)n, MPI_BYTE, w->win, &reqs[(*nreq)++]));
    else
      MPI_OK(MPI_Put(buf + at, (int)n, MPI_BYTE, t, d, (int)n, MPI_BYTE, w->win));
    at += n;
  }
}

static void check_gets(const unsigned char* got, const unsigned char* small, int t, int e,
                       const char* what) {
  MPI_Aint at, to, n;
  for (int k = 0; get_piece(k, &at, &to, &n); k++)
    for (MPI_Aint i = 0; i < n; i++) {
      const unsigned char want = t_pattern(t, t, (size_t)(at + i), e + 1000);
      CHECK(got[to + i] == want, "%s: byte %ld got from rank %d is %d, want %d", what,
            (long)(to + i), t, got[to + i], want);
    }
  for (int i = 0; i < SMALLGET; i++)
    CHECK(small[i] == t_pattern(t, t, (size_t)(SRCB - SMALLGET + i), e + 1000),
          "%s: small get byte %d from rank %d is %d", what, i, t, small[i]);
}

static void check_target(const struct t_win* w, int e, const char* what) {
  for (int o = 0; o < t_size; o++) {
    const unsigned char* slot = (const unsigned char*)w->base + put_off(o);
    for (MPI_Aint i = 0; i < PUTB; i++)
      CHECK(slot[i] == t_pattern(o, t_rank, (size_t)i, e), "%s: slot of rank %d byte %ld is %d",
            what, o, (long)i, slot[i]);
  }
}

/* What the callbacks of one epoch need. */
struct epoch {
  const struct t_win* w;
  enum t_sync s;
  int e;
  unsigned char* buf;   /* PUTB bytes per target */
  unsigned char* got;   /* SRCB bytes per target */
  unsigned char* small; /* SMALLGET bytes per target */
  const char* what;
};

static void epoch_issue(void* ctx, int t, struct t_requests* reqs) {
  struct epoch* ep = ctx;
  issue(ep->w, ep->s, t, ep->buf + (size_t)t * PUTB, ep->got + (size_t)t * SRCB,
        ep->small + t * SMALLGET, reqs->req, &reqs->n);
}

static void epoch_check_gets(void* ctx, int t) {
  const struct epoch* ep = ctx;
  check_gets(ep->got + (size_t)t * SRCB, ep->small + t * SMALLGET, t, ep->e, ep->what);
}

static void epoch_check_target(void* ctx) {
  const struct epoch* ep = ctx;
  check_target(ep->w, ep->e, ep->what);
}

static void run(enum t_flavor f, enum t_sync s, int e) {
  struct t_win w;
  t_sync_window(&w, f, win_bytes(), src_off(), SRCB, e);

  char what[96];
  snprintf(what, sizeof what, "%s/%s", t_flavor_names[f], t_sync_names[s]);
  unsigned char* buf = malloc((size_t)t_size * PUTB);
  for (int t = 0; t < t_size; t++)
    for (MPI_Aint i = 0; i < PUTB; i++)
      buf[(size_t)t * PUTB + (size_t)i] = t_pattern(t_rank, t, (size_t)i, e);
  unsigned char* got = calloc((size_t)t_size, SRCB);
  unsigned char* small = calloc((size_t)t_size, SMALLGET);
  struct epoch ep = {&w, s, e, buf, got, small, what};
  struct t_requests reqs = {malloc(sizeof(MPI_Request) * (size_t)t_size * 256), 0};
  /* Gets are checked as soon as a flush or flush_local promises them. */
  const struct t_sync_test test = {epoch_issue, epoch_check_gets, epoch_check_target, &ep, 1};
  t_sync_epoch(w.win, s, &test, &reqs);
  free(reqs.req);
  free(small);
  free(got);
  free(buf);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size <= 4, "at most 4 ranks");
  int e = 0;
  const enum t_flavor flavors[] = {T_CREATE, T_DYNAMIC, T_ALLOCATE};
  for (int fi = 0; fi < 3; fi++)
    for (int s = 0; s < T_NSYNC; s++)
      run(flavors[fi], (enum t_sync)s, e++);
  if (t_rank == 0) printf("cma_large: OK\n");
  MPI_Finalize();
  return 0;
}
