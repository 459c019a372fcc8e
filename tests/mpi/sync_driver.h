/* One epoch of operations toward every rank of MPI_COMM_WORLD, completed by one kind of
 * synchronization, with the checks each synchronization allows: origins check what they got
 * once it promises completion at the origin, targets their own memory once it promises
 * completion there. The test supplies what it issues and what it checks. */
#ifndef OSPREY_TEST_SYNC_DRIVER_H
#define OSPREY_TEST_SYNC_DRIVER_H

#include "common.h"

enum t_sync {
  T_FLUSH,
  T_FLUSH_ALL,
  T_FLUSH_LOCAL,
  T_UNLOCK,
  T_UNLOCK_ALL,
  T_FENCE,
  T_PSCW,
  T_REQUEST,
  T_NSYNC
};
__attribute__((unused)) static const char* const t_sync_names[] = {
    "flush", "flush_all", "flush_local", "unlock", "unlock_all", "fence", "pscw", "request"};

/* Creates a window of flavor f over MPI_COMM_WORLD with `bytes` per rank, all zero but for the
 * `src_bytes` at `src_off` that origins get: the owner fills them with
 * t_pattern(owner, owner, i, e + 1000). Returns once every rank's window is ready. */
static inline void t_sync_window(struct t_win* w, enum t_flavor f, MPI_Aint bytes, MPI_Aint src_off,
                                 MPI_Aint src_bytes, int e) {
  t_win_create(w, f, bytes, 1, MPI_COMM_WORLD);
  memset(w->base, 0, (size_t)bytes);
  for (MPI_Aint i = 0; i < src_bytes; i++)
    w->base[src_off + i] = (char)t_pattern(t_rank, t_rank, (size_t)i, e + 1000);
  t_sync_own(w->win);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Request-based operations the issue callback started; the driver waits for each. */
struct t_requests {
  MPI_Request* req;
  int n;
};

struct t_sync_test {
  /* Every operation of this origin toward target t; request-based ones go into reqs. */
  void (*issue)(void* ctx, int t, struct t_requests* reqs);
  /* The origin checks what it got from target t. */
  void (*check_gets)(void* ctx, int t);
  /* This rank, as a target, checks its own window memory (the driver ran MPI_Win_sync). */
  void (*check_target)(void* ctx);
  void* ctx;
  /* Also check the gets from each target right after its flush or flush_local. */
  int check_gets_at_flush;
};

/* Runs the epoch on `win` (over MPI_COMM_WORLD) and checks; reqs must have room for every
 * request the issue callback starts. Unlock takes exclusive locks at even targets, shared ones
 * at odd targets. */
static inline void t_sync_epoch(MPI_Win win, enum t_sync s, const struct t_sync_test* test,
                                struct t_requests* reqs) {
  MPI_Group all;
  MPI_Comm_group(MPI_COMM_WORLD, &all);
  switch (s) {
    case T_FLUSH:
    case T_FLUSH_ALL:
    case T_FLUSH_LOCAL:
    case T_REQUEST:
      MPI_OK(MPI_Win_lock_all(0, win));
      for (int t = 0; t < t_size; t++) {
        test->issue(test->ctx, t, reqs);
        if (s == T_FLUSH) MPI_OK(MPI_Win_flush(t, win));
        if (s == T_FLUSH_LOCAL) MPI_OK(MPI_Win_flush_local(t, win));
        if (test->check_gets_at_flush && (s == T_FLUSH || s == T_FLUSH_LOCAL))
          test->check_gets(test->ctx, t);
      }
      if (s == T_FLUSH_ALL) MPI_OK(MPI_Win_flush_all(win));
      for (int i = 0; i < reqs->n; i++)
        MPI_OK(MPI_Wait(&reqs->req[i], MPI_STATUS_IGNORE));
      for (int t = 0; t < t_size; t++)
        test->check_gets(test->ctx, t);
      if (s == T_FLUSH || s == T_FLUSH_ALL) {
        /* Complete at every target now, before the epoch ends. */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_sync(win));
        test->check_target(test->ctx);
        MPI_Barrier(MPI_COMM_WORLD);
      }
      MPI_OK(MPI_Win_unlock_all(win));
      break;
    case T_UNLOCK:
      for (int t = 0; t < t_size; t++) {
        MPI_OK(MPI_Win_lock(t % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, win));
        test->issue(test->ctx, t, reqs);
        MPI_OK(MPI_Win_unlock(t, win));
        test->check_gets(test->ctx, t);
      }
      break;
    case T_UNLOCK_ALL:
      MPI_OK(MPI_Win_lock_all(0, win));
      for (int t = 0; t < t_size; t++)
        test->issue(test->ctx, t, reqs);
      MPI_OK(MPI_Win_unlock_all(win));
      for (int t = 0; t < t_size; t++)
        test->check_gets(test->ctx, t);
      break;
    case T_FENCE:
      MPI_OK(MPI_Win_fence(0, win));
      for (int t = 0; t < t_size; t++)
        test->issue(test->ctx, t, reqs);
      MPI_OK(MPI_Win_fence(0, win));
      for (int t = 0; t < t_size; t++)
        test->check_gets(test->ctx, t);
      break;
    case T_PSCW:
      MPI_OK(MPI_Win_post(all, 0, win));
      MPI_OK(MPI_Win_start(all, 0, win));
      for (int t = 0; t < t_size; t++)
        test->issue(test->ctx, t, reqs);
      MPI_OK(MPI_Win_complete(win));
      for (int t = 0; t < t_size; t++)
        test->check_gets(test->ctx, t);
      MPI_OK(MPI_Win_wait(win));
      break;
    default:
      break;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t_sync_own(win);
  test->check_target(test->ctx);
  MPI_Group_free(&all);
}

#endif
