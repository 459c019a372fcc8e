/* What osprey costs the host MPI's own calls. osprey turns blocking collectives into their
 * nonblocking form plus a progress loop on every rank (always, so that calls match alike on
 * every rank), and blocking point-to-point likewise where a message endpoint exists, so that
 * a target of the message path serves requests while it waits. This measures those calls,
 * with or without osprey preloaded (bench/compare.py runs both):
 *
 *   host_calls [-t ms] [-r reps]
 *
 * Prints "BENCH call_<name> 8 <microseconds>" for MPI_Barrier, 8-byte MPI_Allreduce and
 * MPI_Bcast, and half an 8-byte MPI_Send/MPI_Recv round trip between ranks 0 and 1 (the others
 * wait in a barrier), then "ENGINE <name>". A window stays open meanwhile, so that under
 * OSPREY_TRANSPORT=am the message endpoint exists and point-to-point is interposed too. */
#include <stdint.h>

#include "bench_common.h"

enum call { BARRIER, ALLREDUCE, BCAST, PINGPONG, NCALLS };
static const char* const names[NCALLS] = {"barrier", "allreduce", "bcast", "pingpong"};

struct ctx {
  enum call call;
  int rank;
};

static void body(void* p, long iters) {
  const struct ctx* c = p;
  int64_t v = c->rank, out = 0;
  for (long i = 0; i < iters; i++) {
    switch (c->call) {
      case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
      case ALLREDUCE:
        MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        break;
      case BCAST:
        MPI_Bcast(&v, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        break;
      default:
        if (c->rank == 0) {
          MPI_Send(&v, 1, MPI_INT64_T, 1, 5, MPI_COMM_WORLD);
          MPI_Recv(&out, 1, MPI_INT64_T, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (c->rank == 1) {
          MPI_Recv(&out, 1, MPI_INT64_T, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(&v, 1, MPI_INT64_T, 0, 5, MPI_COMM_WORLD);
        }
        break;
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double seconds = 0.2;
  int reps = 5;
  const struct bench_option opts[] = {{"-t", 'm', &seconds}, {"-r", 'i', &reps}};
  struct ctx c = {BARRIER, 0};
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  if (bench_options(argc, argv, opts, 2) != 0) {
    if (c.rank == 0) fprintf(stderr, "usage: host_calls [-t ms] [-r reps]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* mem;
  MPI_Win win;
  MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (int k = 0; k < NCALLS; k++) {
    c.call = (enum call)k;
    double t = bench_time(body, &c, seconds, reps, 1L << 24);
    if (k == PINGPONG) t /= 2;
    if (c.rank == 0) printf("BENCH call_%s 8 %.4f\n", names[k], t * 1e6);
  }
  if (c.rank == 0) printf("ENGINE %s\n", bench_engine(win));
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
