/* Small puts, gets and accumulates posted while nothing else waits for their target are written
 * as batch records straight away, and ride in the next request; one alone goes as a request of
 * its own. What must hold whatever the records do:
 *  - order: records go ahead of the operations queued after them (a 2 KiB accumulate that
 *    cannot be a record, then small replacing accumulates that must now queue behind it, an
 *    accumulate of a strided type, a get_accumulate reading the result): every origin's
 *    elements end at the one value program order gives, and the get_accumulate sees it;
 *  - data: 70 puts of 80 bytes in a row, every other one followed by a get of 64 bytes, fill
 *    more than one request's records and pass the count at which queued operations are sent
 *    early, then 20 gets of 512 bytes return more than one request's records may
 *    (Window::record_reply_cap); every byte lands, and every get's data lands where it belongs
 *    (records' gets come first in a reply, then those of operations queued behind them, of
 *    which there is one);
 *  - atomicity: every origin's record accumulates to a counter shared at each target race the
 *    other origins' records and fetch_and_ops on it, and no update is lost;
 *  - records past what may ride with an operation: four puts of 1 KiB, then one of 2 KiB queued
 *    behind them, toward one target (the records go in a request of their own first; under
 *    PSCW with pools of one element the target element's own element is then held by the
 *    complete request, and the records' request must not wait for it);
 *  - a lone record: epochs with a single accumulate toward a target (int64, then double) or a
 *    single get go as operations of their own; the counters they build up hold every one, and
 *    the get reads its data;
 *  - every synchronization (the sync driver's). */
#include "sync_driver.h"

enum {
  NA = 256,        /* int64 elements of an origin's ordered array (2 KiB) */
  NPUT = 70,       /* puts in a row */
  PUTB = 80,       /* bytes per put */
  NGET = NPUT / 2, /* gets of GETB bytes among the puts */
  GETB = 64,
  BURST = 20, /* then gets of BURSTB bytes */
  BURSTB = 512,
  SRCB = NGET * GETB + 256 + BURST * BURSTB, /* what origins read at each target, never written */
  GOTB = NGET * GETB + 100 + BURST * BURSTB, /* what an origin reads from each target */
  BIGN = 4,    /* puts of BIGB bytes: records beyond what may ride with an operation, */
  BIGB = 1024, /* then a put of 2 * BIGB queued behind them */
  BIG = (BIGN + 2) * BIGB,
  KINDS = 5, /* full sequence, lone int64, lone double, lone get, BIGN puts and a larger one */
  EPOCHS = 3 * KINDS, /* per synchronization */
};

/* Window layout: a shared counter, then per origin its lone-record counters, then per origin its
 * ordered array and its put region. */
static MPI_Aint lone_off(int o) {
  return 8 + (MPI_Aint)o * 16;
}
static MPI_Aint slot_off(int o, int size) {
  return 8 + (MPI_Aint)size * 16 + (MPI_Aint)o * (NA * 8 + NPUT * PUTB + BIG);
}
static MPI_Aint src_off(int size) {
  return slot_off(size, size);
}

struct ctx {
  MPI_Win win;
  char* base;
  enum t_sync sync;
  int e, full_epochs, lone_int, lone_double; /* epochs of each kind so far, this one included */
  int64_t* src;
  int64_t* result; /* per target: the get_accumulate's 32 elements */
  int64_t* fetched;
  unsigned char* puts;
  unsigned char* got;  /* per target: the gets' data, NGET * GETB bytes, 100 more, the burst */
  unsigned char* lone; /* per target: a lone get's 48 bytes */
  unsigned char* big;  /* per target: BIG bytes put in epochs of kind 4 */
  MPI_Datatype every_other;
};

static int64_t w(int o, int e, int j) {
  return (int64_t)e * 1000003 + (int64_t)j * 7 + (int64_t)o * 131;
}

/* What origin o's element j holds at the end of full epoch e. */
static int64_t expected(int o, int e, int j) {
  if (j < 16) return w(o, e, j) + 50; /* replaced after the sum over the whole array */
  int64_t v = w(o, e, j) + 1;
  if (j < 48 && (j - 16) % 2 == 0) v += 100;
  return v;
}

static void issue_full(struct ctx* c, int t, struct t_requests* reqs) {
  const int me = t_rank, e = c->e;
  const MPI_Aint slot = slot_off(me, t_size);
  const MPI_Aint puts = slot + NA * 8;
  static const int64_t one = 1, hundred = 100;
  /* Records: puts past the count sent early and more than one request's worth. */
  unsigned char* got = c->got + (size_t)t * GOTB;
  memset(got, 0, GOTB);
  for (int k = 0; k < NPUT; k++) {
    unsigned char* p = c->puts + ((size_t)t * NPUT + (size_t)k) * PUTB;
    t_fill(p, PUTB, me, t, e * NPUT + k);
    MPI_OK(MPI_Put(p, PUTB, MPI_BYTE, t, puts + (MPI_Aint)k * PUTB, PUTB, MPI_BYTE, c->win));
    if (k % 2 == 0) continue;
    /* The driver completes this synchronization's reads by their requests only. */
    unsigned char* to = got + (k / 2) * GETB;
    const MPI_Aint from = src_off(t_size) + (MPI_Aint)((k / 2 + me) % NGET) * GETB;
    if (c->sync == T_REQUEST)
      MPI_OK(MPI_Rget(to, GETB, MPI_BYTE, t, from, GETB, MPI_BYTE, c->win, &reqs->req[reqs->n++]));
    else
      MPI_OK(MPI_Get(to, GETB, MPI_BYTE, t, from, GETB, MPI_BYTE, c->win));
  }
  /* Records: gets returning more than the gets of one request's records may. */
  for (int k = 0; k < BURST; k++) {
    unsigned char* to = got + NGET * GETB + 100 + (size_t)k * BURSTB;
    const MPI_Aint from =
        src_off(t_size) + NGET * GETB + 256 + (MPI_Aint)((k + me) % BURST) * BURSTB;
    if (c->sync == T_REQUEST)
      MPI_OK(
          MPI_Rget(to, BURSTB, MPI_BYTE, t, from, BURSTB, MPI_BYTE, c->win, &reqs->req[reqs->n++]));
    else
      MPI_OK(MPI_Get(to, BURSTB, MPI_BYTE, t, from, BURSTB, MPI_BYTE, c->win));
  }
  /* Records: replace the whole array, 16 elements at a time, the first 16 one by one. */
  int64_t* s = c->src + (size_t)t * 2 * NA;
  for (int j = 0; j < NA; j++)
    s[j] = w(me, e, j);
  for (int j = 16; j < NA; j += 16)
    MPI_OK(MPI_Accumulate(s + j, 16, MPI_INT64_T, t, slot + j * 8, 16, MPI_INT64_T, MPI_REPLACE,
                          c->win));
  for (int j = 0; j < 16; j++)
    MPI_OK(MPI_Accumulate(s + j, 1, MPI_INT64_T, t, slot + j * 8, 1, MPI_INT64_T, MPI_REPLACE,
                          c->win));
  /* A record on the shared counter, racing the other origins'. */
  MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, c->win));
  /* Too large for a record: queued behind the records. */
  static int64_t ones[NA];
  for (int j = 0; j < NA; j++)
    ones[j] = 1;
  MPI_OK(MPI_Accumulate(ones, NA, MPI_INT64_T, t, slot, NA, MPI_INT64_T, MPI_SUM, c->win));
  /* A get queued behind it: its data follows the records' gets' in the reply. */
  if (c->sync == T_REQUEST)
    MPI_OK(MPI_Rget(got + NGET * GETB, 100, MPI_BYTE, t, src_off(t_size) + NGET * GETB, 100,
                    MPI_BYTE, c->win, &reqs->req[reqs->n++]));
  else
    MPI_OK(MPI_Get(got + NGET * GETB, 100, MPI_BYTE, t, src_off(t_size) + NGET * GETB, 100,
                   MPI_BYTE, c->win));
  /* Small again, but behind a queued operation: they must stay behind it (run ahead, the sum
   * would land on them). */
  int64_t* again = s + NA; /* the other half of this target's source */
  for (int j = 0; j < 16; j++) {
    again[j] = w(me, e, j) + 50;
    MPI_OK(MPI_Accumulate(again + j, 1, MPI_INT64_T, t, slot + j * 8, 1, MPI_INT64_T, MPI_REPLACE,
                          c->win));
  }
  /* A strided target type: every other element from 16 on, 16 of them. */
  static int64_t hundreds[16];
  for (int j = 0; j < 16; j++)
    hundreds[j] = hundred;
  MPI_OK(MPI_Accumulate(hundreds, 16, MPI_INT64_T, t, slot + 16 * 8, 1, c->every_other, MPI_SUM,
                        c->win));
  int64_t* r = c->result + (size_t)t * 32;
  if (c->sync != T_REQUEST) {
    MPI_OK(MPI_Fetch_and_op(&one, c->fetched + t, MPI_INT64_T, t, 0, MPI_SUM, c->win));
    MPI_OK(MPI_Get_accumulate(s, 32, MPI_INT64_T, r, 32, MPI_INT64_T, t, slot, 32, MPI_INT64_T,
                              MPI_NO_OP, c->win));
    return;
  }
  /* The driver completes this synchronization's reads by their requests only. */
  MPI_OK(MPI_Rget_accumulate(&one, 1, MPI_INT64_T, c->fetched + t, 1, MPI_INT64_T, t, 0, 1,
                             MPI_INT64_T, MPI_SUM, c->win, &reqs->req[reqs->n++]));
  MPI_OK(MPI_Rget_accumulate(s, 32, MPI_INT64_T, r, 32, MPI_INT64_T, t, slot, 32, MPI_INT64_T,
                             MPI_NO_OP, c->win, &reqs->req[reqs->n++]));
}

static void issue(void* v, int t, struct t_requests* reqs) {
  struct ctx* c = v;
  static const int64_t five = 5;
  static const double half = 0.5;
  switch (c->e % KINDS) {
    case 0:
      issue_full(c, t, reqs);
      break;
    case 1: /* a lone record: nothing before or after it toward t */
      MPI_OK(MPI_Accumulate(&five, 1, MPI_INT64_T, t, lone_off(t_rank), 1, MPI_INT64_T, MPI_SUM,
                            c->win));
      break;
    case 2:
      MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, t, lone_off(t_rank) + 8, 1, MPI_DOUBLE, MPI_SUM,
                            c->win));
      break;
    case 4: { /* the records go alone, ahead of the put queued behind them */
      /* One target only: puts to others first would empty the pools before this one's. */
      if (t != (t_rank + 1) % t_size) break;
      const MPI_Aint big = slot_off(t_rank, t_size) + NA * 8 + NPUT * PUTB;
      unsigned char* b = c->big + (size_t)t * BIG;
      t_fill(b, BIG, t_rank, t, c->e);
      for (int k = 0; k < BIGN; k++)
        MPI_OK(MPI_Put(b + k * BIGB, BIGB, MPI_BYTE, t, big + k * BIGB, BIGB, MPI_BYTE, c->win));
      MPI_OK(MPI_Put(b + BIGN * BIGB, 2 * BIGB, MPI_BYTE, t, big + BIGN * BIGB, 2 * BIGB, MPI_BYTE,
                     c->win));
      break;
    }
    default:
      memset(c->lone + (size_t)t * 48, 0, 48);
      if (c->sync == T_REQUEST)
        MPI_OK(MPI_Rget(c->lone + (size_t)t * 48, 48, MPI_BYTE, t, src_off(t_size) + 8 * t_rank, 48,
                        MPI_BYTE, c->win, &reqs->req[reqs->n++]));
      else
        MPI_OK(MPI_Get(c->lone + (size_t)t * 48, 48, MPI_BYTE, t, src_off(t_size) + 8 * t_rank, 48,
                       MPI_BYTE, c->win));
      break;
  }
}

/* The byte at i of every target's read-only region (t_sync_window's). */
static unsigned char src_byte(int t, size_t i) {
  return t_pattern(t, t, i, 1000);
}

static void check_gets(void* v, int t) {
  struct ctx* c = v;
  if (c->e % KINDS == 3) {
    for (int i = 0; i < 48; i++)
      CHECK(c->lone[t * 48 + i] == src_byte(t, (size_t)(8 * t_rank + i)),
            "epoch %d: lone get from target %d byte %d is %d, want %d", c->e, t, i,
            c->lone[t * 48 + i], src_byte(t, (size_t)(8 * t_rank + i)));
    return;
  }
  if (c->e % KINDS) return;
  const unsigned char* got = c->got + (size_t)t * GOTB;
  for (int k = 0; k < NGET; k++)
    for (int i = 0; i < GETB; i++) {
      const size_t at = (size_t)((k + t_rank) % NGET) * GETB + (size_t)i;
      CHECK(got[k * GETB + i] == src_byte(t, at),
            "%s, epoch %d: get %d from target %d byte %d is %d, want %d", t_sync_names[c->sync],
            c->e, k, t, i, got[k * GETB + i], src_byte(t, at));
    }
  for (int k = 0; k < BURST; k++)
    for (int i = 0; i < BURSTB; i++) {
      const size_t at = NGET * GETB + 256 + (size_t)((k + t_rank) % BURST) * BURSTB + (size_t)i;
      const unsigned char b = got[NGET * GETB + 100 + (size_t)k * BURSTB + (size_t)i];
      CHECK(b == src_byte(t, at),
            "%s, epoch %d: burst get %d from target %d byte %d is %d, want %d",
            t_sync_names[c->sync], c->e, k, t, i, b, src_byte(t, at));
    }
  for (int i = 0; i < 100; i++)
    CHECK(got[NGET * GETB + i] == src_byte(t, (size_t)(NGET * GETB + i)),
          "epoch %d: the queued get from target %d byte %d is %d, want %d", c->e, t, i,
          got[NGET * GETB + i], src_byte(t, (size_t)(NGET * GETB + i)));
  const int64_t* r = c->result + (size_t)t * 32;
  for (int j = 0; j < 32; j++)
    CHECK(r[j] == expected(t_rank, c->e, j),
          "epoch %d: get_accumulate of element %d at target %d read %lld, want %lld", c->e, j, t,
          (long long)r[j], (long long)expected(t_rank, c->e, j));
  /* Two increments per origin and full epoch before this one, and this origin's record before
   * it (accumulates from one origin to one place run in order); at most all of this one's. */
  const int64_t f = c->fetched[t];
  CHECK(f >= (int64_t)2 * t_size * (c->full_epochs - 1) + 1 &&
            f < (int64_t)2 * t_size * c->full_epochs,
        "epoch %d: fetch_and_op at target %d read %lld", c->e, t, (long long)f);
}

static void check_target(void* v) {
  struct ctx* c = v;
  int64_t shared;
  memcpy(&shared, c->base, 8);
  CHECK(shared == (int64_t)2 * t_size * c->full_epochs,
        "epoch %d: shared counter %lld, want %lld (an update was lost or doubled)", c->e,
        (long long)shared, (long long)2 * t_size * c->full_epochs);
  for (int o = 0; o < t_size; o++) {
    int64_t li;
    double ld;
    memcpy(&li, c->base + lone_off(o), 8);
    memcpy(&ld, c->base + lone_off(o) + 8, 8);
    CHECK(li == (int64_t)5 * c->lone_int, "epoch %d: origin %d's lone int64 sum %lld, want %lld",
          c->e, o, (long long)li, (long long)5 * c->lone_int);
    CHECK(ld == 0.5 * c->lone_double, "epoch %d: origin %d's lone double sum %g, want %g", c->e, o,
          ld, 0.5 * c->lone_double);
    if (c->full_epochs == 0) continue;
    if (c->e >= 4 && (o + 1) % t_size == t_rank) { /* the last epoch of BIGN puts and more */
      const int eb = c->e - (c->e + 1) % KINDS;
      const unsigned char* b =
          (const unsigned char*)c->base + slot_off(o, t_size) + NA * 8 + NPUT * PUTB;
      for (int i = 0; i < BIG; i++)
        CHECK(b[i] == t_pattern(o, t_rank, (size_t)i, eb),
              "epoch %d: origin %d's large put region byte %d is %d, want %d", c->e, o, i, b[i],
              t_pattern(o, t_rank, (size_t)i, eb));
    }
    const int e = c->e - c->e % KINDS; /* the last full epoch */
    const char* slot = c->base + slot_off(o, t_size);
    for (int j = 0; j < NA; j++) {
      int64_t x;
      memcpy(&x, slot + (size_t)j * 8, 8);
      CHECK(x == expected(o, e, j), "epoch %d: origin %d's element %d is %lld, want %lld", c->e, o,
            j, (long long)x, (long long)expected(o, e, j));
    }
    const unsigned char* p = (const unsigned char*)slot + NA * 8;
    for (int k = 0; k < NPUT; k++)
      for (int i = 0; i < PUTB; i++)
        CHECK(p[k * PUTB + i] == t_pattern(o, t_rank, (size_t)i, e * NPUT + k),
              "epoch %d: origin %d's put %d byte %d is %d, want %d", c->e, o, k, i, p[k * PUTB + i],
              t_pattern(o, t_rank, (size_t)i, e * NPUT + k));
  }
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const MPI_Aint bytes = src_off(t_size) + SRCB;
  struct ctx c;
  memset(&c, 0, sizeof c);
  c.src = malloc(sizeof(int64_t) * 2 * NA * (size_t)t_size);
  c.result = malloc(sizeof(int64_t) * 32 * (size_t)t_size);
  c.fetched = malloc(sizeof(int64_t) * (size_t)t_size);
  c.puts = malloc((size_t)t_size * NPUT * PUTB);
  c.got = malloc((size_t)t_size * GOTB);
  c.lone = malloc((size_t)t_size * 48);
  c.big = malloc((size_t)t_size * BIG);
  CHECK(c.src && c.result && c.fetched && c.puts && c.got && c.lone && c.big, "out of memory");
  MPI_OK(MPI_Type_vector(16, 1, 2, MPI_INT64_T, &c.every_other));
  MPI_OK(MPI_Type_commit(&c.every_other));
  /* Request mode: every read of a target is request-based (NGET gets, the burst, one more, two
   * atomics). */
  struct t_requests reqs = {malloc(sizeof(MPI_Request) * (NGET + BURST + 3) * (size_t)t_size), 0};
  CHECK(reqs.req, "out of memory");
  struct t_sync_test test = {issue, check_gets, check_target, &c, 0};
  for (int s = 0; s < T_NSYNC; s++) {
    struct t_win win;
    t_sync_window(&win, T_ALLOCATE, bytes, src_off(t_size), SRCB, 0);
    c.win = win.win;
    c.sync = (enum t_sync)s;
    c.base = win.base;
    c.full_epochs = c.lone_int = c.lone_double = 0;
    for (c.e = 0; c.e < EPOCHS; c.e++) {
      c.full_epochs += c.e % KINDS == 0;
      c.lone_int += c.e % KINDS == 1;
      c.lone_double += c.e % KINDS == 2;
      reqs.n = 0;
      t_sync_epoch(c.win, (enum t_sync)s, &test, &reqs);
      /* Targets check after the epoch; passive epochs of the next one must not start before. */
      MPI_Barrier(MPI_COMM_WORLD);
    }
    t_win_free(&win);
  }
  MPI_Type_free(&c.every_other);
  free(c.src);
  free(c.result);
  free(c.fetched);
  free(c.puts);
  free(c.got);
  free(c.lone);
  free(c.big);
  free(reqs.req);
  return t_finish("am_records");
}
