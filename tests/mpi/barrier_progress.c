/* MPI_Barrier keeps the host's point-to-point moving: a rank that enters the barrier with a
 * large send pending must let it complete, since the receiver needs it before it can reach
 * the barrier (MPI-3.1 section 3.7.4, progress). For a communicator on one node (an
 * oversubscribed one, or of few ranks) osprey serves MPI_Barrier on shared memory; this checks
 * that its waiters still drive the host. Ranks
 * pair up; in each round one of a pair sends 4 MiB (MPI_Isend, MPI_Barrier, MPI_Wait) and the
 * other receives it (MPI_Recv, MPI_Barrier); every byte is checked. */
#include "common.h"

enum { BYTES = 4 << 20, ROUNDS = 6 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  unsigned char* buf = malloc(BYTES);
  CHECK(buf != NULL, "no memory");
  const int partner = t_rank ^ 1;
  for (int round = 0; round < ROUNDS; round++) {
    if (partner >= t_size) {
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      continue;
    }
    const int sender = (t_rank % 2) == (round % 2);
    if (sender) {
      t_fill(buf, BYTES, t_rank, partner, round);
      MPI_Request r;
      MPI_OK(MPI_Isend(buf, BYTES, MPI_BYTE, partner, round, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      memset(buf, 0, BYTES);
      MPI_OK(MPI_Recv(buf, BYTES, MPI_BYTE, partner, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      for (size_t i = 0; i < BYTES; i++)
        CHECK(buf[i] == t_pattern(partner, t_rank, i, round), "round %d: byte %zu is %u", round, i,
              buf[i]);
    }
  }
  free(buf);
  return t_finish("barrier_progress");
}
