/* Where a range error is told under lock_all: every kind of operation (put, get, accumulate,
 * get_accumulate, fetch_and_op, compare_and_swap) toward memory a dynamic window does not
 * attach fails with MPI_ERR_RMA_RANGE from the call itself or from the flush that completes it,
 * never from a later one; a valid operation of the same kind posted between the failing one and
 * that flush still applies, and the next operations and flushes succeed. Each rank works on its
 * right neighbour's region; the owner checks every word it was sent, and the guard words past
 * the attached region, which nothing may touch. On the message path a target answers these
 * requests one by one, so both the plain requests it runs straight from the slot and the ones
 * it refuses (handed to its staged path, which reports the error at the next acknowledgement)
 * are exercised. */
#include "common.h"

enum { WORDS = 32, GUARD = 512, LARGE = 256 };
enum kind { PUT, GET, ACC, GETACC, FOP, CAS, KINDS };
static const char* const names[KINDS] = {
    "put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"};
static const int64_t kSentinel = 0x5a5a5a5a5a5a5a5a;

/* The words of the target's region each kind uses: [2k] for the valid operations posted after
 * a failing one, [2k + 1] for the one after a flushed failure, [2k + WORDS/2] for the one after
 * a failure completed locally only. */
static MPI_Aint word(MPI_Aint base, int k, int second) {
  return base + (MPI_Aint)((2 * k + second) * (int)sizeof(int64_t));
}

/* A value only this origin, kind and step would write. */
static int64_t value(int origin, int k, int step) {
  return 1000000 * (int64_t)(origin + 1) + 1000 * k + step;
}

/* What the get is expected to read: the owner's preset of word i. */
static int64_t preset(int owner, int i) {
  return -(1000 * (int64_t)(owner + 1) + i);
}

/* One operation's buffers, which must stay put until the flush that completes it. */
struct operands {
  int64_t v, cmp, old;
};

/* Issues one operation of kind k at target address `at` with value o->v (and o->cmp, the
 * compare operand); o->old receives what it returns. */
static int issue(enum kind k, int target, MPI_Aint at, struct operands* o, MPI_Win win) {
  switch (k) {
    case PUT:
      return MPI_Put(&o->v, 1, MPI_INT64_T, target, at, 1, MPI_INT64_T, win);
    case GET:
      return MPI_Get(&o->old, 1, MPI_INT64_T, target, at, 1, MPI_INT64_T, win);
    case ACC:
      return MPI_Accumulate(&o->v, 1, MPI_INT64_T, target, at, 1, MPI_INT64_T, MPI_SUM, win);
    case GETACC:
      return MPI_Get_accumulate(&o->v, 1, MPI_INT64_T, &o->old, 1, MPI_INT64_T, target, at, 1,
                                MPI_INT64_T, MPI_SUM, win);
    case FOP:
      return MPI_Fetch_and_op(&o->v, &o->old, MPI_INT64_T, target, at, MPI_SUM, win);
    default:
      return MPI_Compare_and_swap(&o->v, &o->cmp, &o->old, MPI_INT64_T, target, at, win);
  }
}

static int error_class(int rc) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

/* Of the calls that returned rc[0..n), exactly one told the range error, the others succeeded. */
static void expect_one_range_error(const char* what, enum kind k, const int* rc, int n) {
  int told = 0, other = 0;
  for (int i = 0; i < n; i++) {
    told += error_class(rc[i]) == MPI_ERR_RMA_RANGE;
    other += rc[i] != MPI_SUCCESS && error_class(rc[i]) != MPI_ERR_RMA_RANGE;
  }
  CHECK(told == 1 && other == 0, "%s (%s): return codes %d %d %d", what, names[k], rc[0], rc[1],
        n > 2 ? rc[2] : 0);
}

/* The old value a valid operation of kind k returns on a word that held `before`. */
static void check_old(enum kind k, int64_t got, int64_t before, const char* when) {
  if (k == PUT || k == ACC) return;
  CHECK(got == before, "%s %s: returned %lld, want %lld", names[k], when, (long long)got,
        (long long)before);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;

  /* The region and the guard words after it, of which only the region is attached. */
  int64_t* mem = malloc((WORDS + GUARD) * sizeof(int64_t));
  for (int i = 0; i < WORDS; i++)
    mem[i] = (i == 2 * GET || i == 2 * GET + 1 || i == 2 * GET + WORDS / 2) ? preset(t_rank, i) : 0;
  for (int i = WORDS; i < WORDS + GUARD; i++)
    mem[i] = kSentinel;
  MPI_OK(MPI_Win_attach(win, mem, WORDS * (MPI_Aint)sizeof(int64_t)));
  MPI_Aint mine, *base = malloc(sizeof(MPI_Aint) * (size_t)t_size);
  MPI_Get_address(mem, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
  const MPI_Aint at = base[right];
  /* Inside the guard words: allocated at the target, never attached. */
  const MPI_Aint outside = at + (WORDS + 4) * (MPI_Aint)sizeof(int64_t);
  int64_t large[LARGE];
  for (int i = 0; i < LARGE; i++)
    large[i] = value(t_rank, 7, i);

  MPI_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < KINDS; k++) {
    /* Failing, then flushed: the error comes from exactly one of the two calls. */
    struct operands bad = {value(t_rank, k, 9), 0, -1};
    int rc[3];
    rc[0] = issue(k, right, outside, &bad, win);
    rc[1] = MPI_Win_flush(right, win);
    expect_one_range_error("outside the region, then the flush", k, rc, 2);
    /* Then a valid one with its own flush: no error left over. */
    struct operands one = {value(t_rank, k, 1), 0, -1};
    MPI_OK(issue(k, right, word(at, k, 1), &one, win));
    MPI_OK(MPI_Win_flush(right, win));
    check_old(k, one.old, k == GET ? preset(right, 2 * k + 1) : 0, "after a flushed error");
    /* Failing, then a valid one, then the flush: the error from the failing call or the flush,
     * the valid one applied all the same. */
    struct operands bad2 = {value(t_rank, k, 8), 0, -1}, two = {value(t_rank, k, 2), 0, -1};
    rc[0] = issue(k, right, outside, &bad2, win);
    MPI_OK(issue(k, right, word(at, k, 0), &two, win));
    rc[1] = MPI_Win_flush(right, win);
    expect_one_range_error("outside the region, then a valid one, then the flush", k, rc, 2);
    check_old(k, two.old, k == GET ? preset(right, 2 * k) : 0, "posted after a failing one");
    /* And the next flush is clean. */
    MPI_OK(MPI_Win_flush(right, win));
    /* A large failing put (on the message path a request of its own, which no reply of its
     * own answers), then a valid operation on the same word again (compare_and_swap comparing
     * with the value just written), then the flush. */
    struct operands three = {value(t_rank, k, 3), value(t_rank, k, 2), -1};
    rc[0] = MPI_Put(large, LARGE, MPI_INT64_T, right, outside, LARGE, MPI_INT64_T, win);
    MPI_OK(issue(k, right, word(at, k, 0), &three, win));
    rc[1] = MPI_Win_flush(right, win);
    expect_one_range_error("a large put outside the region, then a valid one", k, rc, 2);
    check_old(k, three.old, k == GET ? preset(right, 2 * k) : value(t_rank, k, 2),
              "after a large failing put");
    MPI_OK(MPI_Win_flush(right, win));
    /* A failing put completed locally only (on the message path sent with no reply to wait
     * for), then a valid operation on a word of its own, then the flush that completes both:
     * the error from one of the three calls. */
    struct operands four = {value(t_rank, k, 4), 0, -1}, bad4 = {value(t_rank, k, 7), 0, -1};
    rc[0] = issue(PUT, right, outside, &bad4, win);
    rc[1] = MPI_Win_flush_local(right, win);
    MPI_OK(issue(k, right, word(at, k, 0) + WORDS / 2 * (MPI_Aint)sizeof(int64_t), &four, win));
    rc[2] = MPI_Win_flush(right, win);
    expect_one_range_error("a put outside the region completed locally, then a valid one", k, rc,
                           3);
    check_old(k, four.old, k == GET ? preset(right, 2 * k + WORDS / 2) : 0,
              "after a failing put completed locally");
    MPI_OK(MPI_Win_flush(right, win));
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* The owner's view: every word its left neighbour sent, nothing past the region. */
  for (int k = 0; k < KINDS; k++)
    for (int second = 0; second < 2; second++) {
      const int i = 2 * k + second;
      /* Word 2k+1 took one operation (step 1); word 2k two (step 2, then step 3, which adds
       * to it, or replaces it: put, and compare_and_swap comparing with step 2's value). */
      const int64_t v2 = value(left, k, 2), v3 = value(left, k, 3);
      int64_t want = second ? value(left, k, 1) : (k == PUT || k == CAS) ? v3 : v2 + v3;
      if (k == GET) want = preset(t_rank, i);
      CHECK(mem[i] == want, "%s word %d: %lld, want %lld", names[k], i, (long long)mem[i],
            (long long)want);
    }
  for (int k = 0; k < KINDS; k++) {
    /* Word 2k + WORDS/2 took one operation (step 4). */
    const int i = 2 * k + WORDS / 2;
    const int64_t want = k == GET ? preset(t_rank, i) : value(left, k, 4);
    CHECK(mem[i] == want, "%s word %d: %lld, want %lld", names[k], i, (long long)mem[i],
          (long long)want);
  }
  for (int i = 0; i < WORDS; i++)
    if (i >= 2 * KINDS && (i < WORDS / 2 || i >= WORDS / 2 + 2 * KINDS || i % 2))
      CHECK(mem[i] == 0, "word %d, which nothing targets: %lld", i, (long long)mem[i]);
  for (int i = WORDS; i < WORDS + GUARD; i++)
    CHECK(mem[i] == kSentinel, "guard word %d past the attached region was written: %llx", i,
          (unsigned long long)mem[i]);

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_detach(win, mem));
  MPI_OK(MPI_Win_free(&win));
  free(base);
  free(mem);
  return t_finish("range_errors_told");
}
