/* MPI_THREAD_MULTIPLE: the interleavings of RMA calls from threads of one process that the
 * standard allows (the MPICH "New RMA Design" list and what follows from it), each checked by
 * the data it moves:
 *   locks     threads holding lock epochs on different targets of one window at once
 *   flush     operations + flush + flush_all from several threads under one lock_all
 *   fence     operations issued by a thread while another calls MPI_Win_fence
 *   pscw      PSCW epochs on two windows from two threads; two threads' puts in one access epoch
 *   lifetime  windows created and freed by two threads on two communicators at once
 *   attach    attach/detach by threads while other ranks read the window */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

enum { THREADS = 2, ITER = 200 };

static struct t_win w;
static int du;
/* Origin buffers of operations that complete after their thread ended must outlive it. */
static const int64_t one = 1;

static MPI_Aint slot(int r, int index) {
  return t_disp(&w, r, (MPI_Aint)index * 8, du);
}

static void run_threads(void* (*fn)(void*)) {
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, fn, (void*)(intptr_t)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
}

/* ---- locks: thread j owns the targets t with t % THREADS == j ------------------------------ */
static void* lock_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  for (int it = 0; it < ITER; it++)
    for (int t = id; t < t_size; t += THREADS) {
      const int64_t mark = t_rank * 100000 + it;
      int64_t back = -1;
      MPI_OK(MPI_Win_lock(it % 3 == 0 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, w.win));
      MPI_OK(MPI_Put(&mark, 1, MPI_INT64_T, t, slot(t, 1 + t_rank), 1, MPI_INT64_T, w.win));
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, slot(t, 0), 1, MPI_INT64_T, MPI_SUM, w.win));
      MPI_OK(MPI_Win_flush(t, w.win));
      MPI_OK(MPI_Get(&back, 1, MPI_INT64_T, t, slot(t, 1 + t_rank), 1, MPI_INT64_T, w.win));
      MPI_OK(MPI_Win_unlock(t, w.win));
      CHECK(back == mark, "locks %s: read %lld back from %d, wrote %lld", t_flavor_names[w.flavor],
            (long long)back, t, (long long)mark);
    }
  return NULL;
}

static void check_locks(void) {
  const int64_t* mine = (const int64_t*)w.base;
  CHECK(mine[0] == (int64_t)t_size * ITER, "locks %s: counter %lld want %lld",
        t_flavor_names[w.flavor], (long long)mine[0], (long long)t_size * ITER);
  for (int r = 0; r < t_size; r++)
    CHECK(mine[1 + r] == r * 100000 + ITER - 1, "locks %s: mark of %d is %lld",
          t_flavor_names[w.flavor], r, (long long)mine[1 + r]);
}

/* ---- flush: workers put, accumulate and fetch while a third thread flushes ------------------ */
static atomic_int workers_left;

static void* flush_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  int64_t old = 0;
  for (int it = 0; it < ITER; it++) {
    const int t = (it + id) % t_size;
    const int64_t mark = (t_rank * THREADS + id) * 100000 + it;
    int64_t back = -1;
    MPI_OK(MPI_Put(&mark, 1, MPI_INT64_T, t, slot(t, 1 + t_rank * THREADS + id), 1, MPI_INT64_T,
                   w.win));
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, slot(t, 0), MPI_SUM, w.win));
    MPI_OK(MPI_Win_flush(t, w.win));
    MPI_OK(MPI_Get(&back, 1, MPI_INT64_T, t, slot(t, 1 + t_rank * THREADS + id), 1, MPI_INT64_T,
                   w.win));
    MPI_OK(MPI_Win_flush(t, w.win));
    CHECK(back == mark, "flush %s: read %lld back from %d, wrote %lld", t_flavor_names[w.flavor],
          (long long)back, t, (long long)mark);
  }
  atomic_fetch_sub(&workers_left, 1);
  return NULL;
}

static void* flusher(void* arg) {
  (void)arg;
  for (int i = 0; atomic_load(&workers_left) > 0; i++)
    MPI_OK(i % 2 ? MPI_Win_flush_all(w.win) : MPI_Win_flush(i % t_size, w.win));
  return NULL;
}

static void check_flush(void) {
  const int64_t* mine = (const int64_t*)w.base;
  int64_t want = 0;
  for (int id = 0; id < THREADS; id++)
    for (int it = 0; it < ITER; it++)
      want += (it + id) % t_size == t_rank;
  want *= t_size;
  CHECK(mine[0] == want, "flush %s: counter %lld want %lld", t_flavor_names[w.flavor],
        (long long)mine[0], (long long)want);
}

/* ---- fence: a worker accumulates while the main thread fences ------------------------------- */
enum { FENCES = 40 };

static void* fence_worker(void* arg) {
  (void)arg;
  for (int it = 0; it < ITER; it++)
    for (int t = 0; t < t_size; t++)
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, slot(t, 0), 1, MPI_INT64_T, MPI_SUM, w.win));
  return NULL;
}

/* ---- pscw: two windows, one thread each; then two threads in one access epoch -------------- */
static struct t_win pw[THREADS];
static MPI_Group left_group, right_group;
static int left, right;

static void* pscw_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  int64_t* mine = (int64_t*)pw[id].base;
  for (int e = 0; e < ITER / 4; e++) {
    const int64_t mark = (t_rank * THREADS + id) * 100000 + e;
    MPI_OK(MPI_Win_post(left_group, 0, pw[id].win));
    MPI_OK(MPI_Win_start(right_group, 0, pw[id].win));
    MPI_OK(MPI_Put(&mark, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, pw[id].win));
    MPI_OK(MPI_Win_complete(pw[id].win));
    MPI_OK(MPI_Win_wait(pw[id].win));
    const int64_t want = (left * THREADS + id) * 100000 + e;
    CHECK(mine[0] == want, "pscw window %d epoch %d: %lld want %lld", id, e, (long long)mine[0],
          (long long)want);
  }
  return NULL;
}

static void* pscw_shared_epoch_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  static int64_t marks[THREADS];
  marks[id] = t_rank * 100 + id;
  MPI_OK(MPI_Put(&marks[id], 1, MPI_INT64_T, right, 1 + id, 1, MPI_INT64_T, pw[0].win));
  return NULL;
}

/* ---- lifetime: each thread creates and frees windows on its own communicator ---------------- */
static MPI_Comm thread_comm[THREADS];

static void* lifetime_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  for (int round = 0; round < 12; round++) {
    struct t_win v;
    const enum t_flavor f = round % 2 ? T_CREATE : T_ALLOCATE;
    t_win_create(&v, f, 64, 8, thread_comm[id]);
    MPI_Win_set_errhandler(v.win, MPI_ERRORS_RETURN);
    memset(v.base, 0, 64);
    const int64_t mark = (t_rank * THREADS + id) * 1000 + round;
    MPI_OK(MPI_Win_fence(0, v.win));
    MPI_OK(MPI_Put(&mark, 1, MPI_INT64_T, right, id, 1, MPI_INT64_T, v.win));
    MPI_OK(MPI_Win_fence(0, v.win));
    const int64_t want = (left * THREADS + id) * 1000 + round;
    CHECK(((int64_t*)v.base)[id] == want, "lifetime thread %d round %d: %lld want %lld", id, round,
          (long long)((int64_t*)v.base)[id], (long long)want);
    t_win_free(&v);
  }
  return NULL;
}

/* ---- attach: threads attach and detach their buffers while the window is read --------------- */
static atomic_int attach_left;

static void* attach_worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  static char bufs[THREADS][8][4096];
  for (int round = 0; round < ITER; round++) {
    char* b = bufs[id][round % 8];
    MPI_OK(MPI_Win_attach(w.win, b, sizeof bufs[id][0]));
    MPI_OK(MPI_Win_detach(w.win, b));
  }
  atomic_fetch_sub(&attach_left, 1);
  return NULL;
}

int main(int argc, char** argv) {
  t_init_multiple(&argc, &argv);
  left = (t_rank + t_size - 1) % t_size;
  right = (t_rank + 1) % t_size;
  const int words = 1 + t_size * THREADS;

  for (int f = 0; f < T_NFLAVORS; f++) {
    if (!t_win_create(&w, (enum t_flavor)f, words * 8, 8, MPI_COMM_WORLD)) continue;
    du = w.flavor == T_DYNAMIC ? 1 : 8;
    /* Errors come back to MPI_OK, which names the call and line. */
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);

    memset(w.base, 0, (size_t)words * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    run_threads(lock_worker);
    MPI_Barrier(MPI_COMM_WORLD);
    check_locks();

    memset(w.base, 0, (size_t)words * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, w.win));
    atomic_store(&workers_left, THREADS);
    pthread_t fl;
    pthread_create(&fl, NULL, flusher, NULL);
    run_threads(flush_worker);
    pthread_join(fl, NULL);
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    check_flush();

    memset(w.base, 0, (size_t)words * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_fence(0, w.win));
    pthread_t fw;
    pthread_create(&fw, NULL, fence_worker, NULL);
    for (int i = 0; i < FENCES; i++)
      MPI_OK(MPI_Win_fence(0, w.win));
    pthread_join(fw, NULL);
    MPI_OK(MPI_Win_fence(0, w.win));
    CHECK(((int64_t*)w.base)[0] == (int64_t)t_size * ITER, "fence %s: counter %lld want %lld",
          t_flavor_names[w.flavor], (long long)((int64_t*)w.base)[0], (long long)t_size * ITER);
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));

    if (w.flavor == T_DYNAMIC) {
      /* Rank r's region holds r's pattern; threads attach and detach other memory meanwhile. */
      t_fill(w.base, (size_t)words * 8, t_rank, 0, 0);
      MPI_Barrier(MPI_COMM_WORLD);
      atomic_store(&attach_left, THREADS);
      pthread_t aw[THREADS];
      for (int i = 0; i < THREADS; i++)
        pthread_create(&aw[i], NULL, attach_worker, (void*)(intptr_t)i);
      MPI_OK(MPI_Win_lock_all(0, w.win));
      const int n = words * 8;
      unsigned char got[8 * (1 + 4 * THREADS)], want[sizeof got];
      CHECK(n <= (int)sizeof got, "attach: %d ranks are too many", t_size);
      t_fill(want, (size_t)n, right, 0, 0);
      int reads = 0;
      while (atomic_load(&attach_left) > 0 || reads < 10) {
        memset(got, 0, sizeof got);
        MPI_OK(MPI_Get(got, n, MPI_BYTE, right, w.addrs[right], n, MPI_BYTE, w.win));
        MPI_OK(MPI_Win_flush(right, w.win));
        CHECK(memcmp(got, want, (size_t)n) == 0, "attach: read %d of rank %d wrong", reads, right);
        reads++;
      }
      MPI_OK(MPI_Win_unlock_all(w.win));
      for (int i = 0; i < THREADS; i++)
        pthread_join(aw[i], NULL);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    t_win_free(&w);
  }

  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &left_group);
  MPI_Group_incl(world, 1, &right, &right_group);
  for (int i = 0; i < THREADS; i++) {
    t_win_create(&pw[i], T_ALLOCATE, 8 * (1 + THREADS), 8, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(pw[i].win, MPI_ERRORS_RETURN);
    memset(pw[i].base, 0, 8 * (1 + THREADS));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  run_threads(pscw_worker);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_post(left_group, 0, pw[0].win));
  MPI_OK(MPI_Win_start(right_group, 0, pw[0].win));
  run_threads(pscw_shared_epoch_worker);
  MPI_OK(MPI_Win_complete(pw[0].win));
  MPI_OK(MPI_Win_wait(pw[0].win));
  for (int id = 0; id < THREADS; id++)
    CHECK(((int64_t*)pw[0].base)[1 + id] == left * 100 + id,
          "pscw shared epoch: thread %d put %lld", id, (long long)((int64_t*)pw[0].base)[1 + id]);
  for (int i = 0; i < THREADS; i++)
    t_win_free(&pw[i]);
  MPI_Group_free(&left_group);
  MPI_Group_free(&right_group);
  MPI_Group_free(&world);

  for (int i = 0; i < THREADS; i++)
    MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[i]);
  run_threads(lifetime_worker);
  for (int i = 0; i < THREADS; i++)
    MPI_Comm_free(&thread_comm[i]);

  return t_finish("thread_interleavings");
}
