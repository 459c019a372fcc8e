/* The blocking point-to-point calls osprey turns into a nonblocking call plus a wait that also
 * serves message-path requests (and tests its request in the same host call as the request
 * slot): they must return what the host's own calls return. Ranks pair up; in each round the
 * sender first accumulates into the receiver's window (which the receiver serves while it
 * waits in MPI_Recv), then sends after a pause, so that the receive waits. The receiver checks
 * every received int, the status (source, tag, count; MPI_ERROR left as it was, as MPI_Recv
 * leaves it), MPI_Wait's and MPI_Sendrecv's statuses, and that a message too long for its
 * buffer fails with MPI_ERR_TRUNCATE where the communicator returns errors (also where
 * MPI_COMM_WORLD aborts on errors: the error goes to the communicator's handler, as the host's
 * MPI_Recv sends it; a user-defined handler is called with the receive's communicator). At
 * the end each window holds the sum of what its origin added. */
#include <unistd.h>

#include "common.h"

enum { ROUNDS = 40, MAX_INTS = 256, SENTINEL = 4242 };

// What the user-defined error handler saw.
static MPI_Comm seen_comm = MPI_COMM_NULL;
static int seen_class = -1, seen_calls = 0;

static void on_error(MPI_Comm* comm, int* code, ...) {
  seen_comm = *comm;
  MPI_Error_class(*code, &seen_class);
  seen_calls++;
}

static int value(int from, int round, int i) {
  return from * 100000 + round * 1000 + i;
}

static void check_message(const int* buf, const MPI_Status* st, int from, int tag, int n) {
  int count = -1;
  MPI_OK(MPI_Get_count(st, MPI_INT, &count));
  CHECK(st->MPI_SOURCE == from, "source %d, want %d", st->MPI_SOURCE, from);
  CHECK(st->MPI_TAG == tag, "tag %d, want %d", st->MPI_TAG, tag);
  CHECK(count == n, "count %d, want %d", count, n);
  CHECK(st->MPI_ERROR == SENTINEL, "MPI_ERROR changed to %d", st->MPI_ERROR);
  for (int i = 0; i < n; i++)
    CHECK(buf[i] == value(from, tag, i), "tag %d: int %d is %d, want %d", tag, i, buf[i],
          value(from, tag, i));
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  int64_t* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4096, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  *base = 0;
  MPI_Comm errs;  // returns errors, for the truncated receive
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &errs));
  MPI_OK(MPI_Comm_set_errhandler(errs, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(0, win));
  const int partner = t_rank ^ 1;
  int out[MAX_INTS], in[MAX_INTS], added = 0;
  for (int round = 0; round < ROUNDS && partner < t_size; round++) {
    const int n = 1 + (round * 37) % MAX_INTS;
    const int sender = (t_rank % 2) == (round % 2);
    MPI_Status st;
    if (sender) {
      const int64_t one = round + 1;
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, partner, 0, 1, MPI_INT64_T, MPI_SUM, win));
      MPI_OK(MPI_Win_flush(partner, win));
      added += round + 1;
      for (int i = 0; i < n; i++)
        out[i] = value(t_rank, round, i);
      usleep(2000);
      if (round % 3 == 0) {
        MPI_OK(MPI_Send(out, n, MPI_INT, partner, round, MPI_COMM_WORLD));
      } else if (round % 3 == 1) {
        MPI_Request r;
        MPI_OK(MPI_Isend(out, n, MPI_INT, partner, round, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      } else {
        for (int i = 0; i < n; i++)
          in[i] = -1;
        st.MPI_ERROR = SENTINEL;
        MPI_OK(MPI_Sendrecv(out, n, MPI_INT, partner, round, in, MAX_INTS, MPI_INT, partner, round,
                            MPI_COMM_WORLD, &st));
        check_message(in, &st, partner, round, n);
      }
      usleep(2000);
      MPI_OK(MPI_Send(out, 8, MPI_INT, partner, round, errs));
    } else {
      for (int i = 0; i < n; i++)
        in[i] = -1;
      st.MPI_ERROR = SENTINEL;
      if (round % 3 == 0) {
        MPI_OK(MPI_Recv(in, MAX_INTS, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      } else if (round % 3 == 1) {
        MPI_Request r;
        MPI_OK(MPI_Irecv(in, MAX_INTS, MPI_INT, partner, round, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, &st));
      } else {
        for (int i = 0; i < n; i++)
          out[i] = value(t_rank, round, i);
        MPI_OK(MPI_Sendrecv(out, n, MPI_INT, partner, round, in, MAX_INTS, MPI_INT, partner, round,
                            MPI_COMM_WORLD, &st));
      }
      check_message(in, &st, partner, round, n);
      int rc = MPI_Recv(in, 4, MPI_INT, partner, round, errs, MPI_STATUS_IGNORE), cls = -1;
      if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "round %d: truncated receive returned %d (class %d)", round,
            rc, cls);
    }
  }
  // With MPI_COMM_WORLD returning errors too, a truncated receive on it returns its class.
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (partner < t_size && t_rank % 2 == 0) {
    usleep(2000);
    MPI_OK(MPI_Send(out, 8, MPI_INT, partner, ROUNDS, MPI_COMM_WORLD));
  } else if (partner < t_size) {
    int rc = MPI_Recv(in, 4, MPI_INT, partner, ROUNDS, MPI_COMM_WORLD, MPI_STATUS_IGNORE), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive on MPI_COMM_WORLD returned %d (class %d)", rc,
          cls);
  }
  // One user-defined handler on MPI_COMM_WORLD and on another communicator: a truncated receive
  // on that one calls it with that communicator and the truncation's code.
  MPI_Errhandler handler;
  MPI_Comm user;
  MPI_OK(MPI_Comm_create_errhandler(on_error, &handler));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &user));
  MPI_OK(MPI_Comm_set_errhandler(user, handler));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler));
  if (partner < t_size && t_rank % 2 == 1) {
    usleep(2000);
    MPI_OK(MPI_Send(out, 8, MPI_INT, partner, ROUNDS + 1, user));
  } else if (partner < t_size) {
    int rc = MPI_Recv(in, 4, MPI_INT, partner, ROUNDS + 1, user, MPI_STATUS_IGNORE), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned %d (class %d)", rc, cls);
    CHECK(seen_calls == 1 && seen_comm == user && seen_class == MPI_ERR_TRUNCATE,
          "the handler saw %d calls, the last with %s and class %d", seen_calls,
          seen_comm == user ? "the receive's communicator" : "another communicator", seen_class);
  }
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Errhandler_free(&handler));
  MPI_OK(MPI_Comm_free(&user));
  MPI_OK(MPI_Win_unlock_all(win));
  // What this rank's partner added is all its window holds.
  int from_partner = 0;
  MPI_OK(MPI_Sendrecv(&added, 1, MPI_INT, partner < t_size ? partner : MPI_PROC_NULL, 7,
                      &from_partner, 1, MPI_INT, partner < t_size ? partner : MPI_PROC_NULL, 7,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
  CHECK(*base == from_partner, "window holds %lld, partner added %d", (long long)*base,
        from_partner);
  MPI_OK(MPI_Win_unlock(t_rank, win));
  MPI_OK(MPI_Comm_free(&errs));
  MPI_OK(MPI_Win_free(&win));
  return t_finish("blocking_status");
}
