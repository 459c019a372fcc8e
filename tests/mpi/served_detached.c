/* A dynamic window's region detached and unmapped while an origin still has a small put or get
 * toward it waiting for the flush (an erroneous program): the flush must report
 * MPI_ERR_RMA_RANGE, and both processes must carry on, whether the origin issues the operation
 * by cross-memory attach (which fails on the unmapped pages) or leaves it for the target to
 * apply (which refuses it: the range is no longer attached). Then the same with a fresh region
 * that stays: the data must arrive. 2 ranks: rank 0 origin, rank 1 target. */
#include <sys/mman.h>

#include "common.h"

enum { LEN = 1 << 16 };

/* Rank 1 attaches a fresh region; everyone learns its address. */
static char* attach_region(MPI_Win w, MPI_Aint* addr) {
  char* mem = NULL;
  *addr = 0;
  if (t_rank == 1) {
    mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mem != MAP_FAILED, "mmap failed");
    memset(mem, 0, LEN);
    MPI_OK(MPI_Win_attach(w, mem, LEN));
    MPI_Get_address(mem, addr);
  }
  MPI_OK(MPI_Bcast(addr, 1, MPI_AINT, 1, MPI_COMM_WORLD));
  return mem;
}

static void round_trip(MPI_Win w, int put, int detach) {
  MPI_Aint addr;
  char* mem = attach_region(w, &addr);
  long v = 0x1234567890abcdefL, got = -1;
  MPI_OK(MPI_Win_lock_all(0, w));
  if (t_rank == 0) {
    if (put)
      MPI_OK(MPI_Put(&v, 1, MPI_LONG, 1, addr + 64, 1, MPI_LONG, w));
    else
      MPI_OK(MPI_Get(&got, 1, MPI_LONG, 1, addr + 64, 1, MPI_LONG, w));
    int go = 1;
    MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const int rc = MPI_Win_flush(1, w);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (detach) {
      CHECK(cls == MPI_ERR_RMA_RANGE, "%s + flush toward a detached region: class %d, want %d",
            put ? "put" : "get", cls, MPI_ERR_RMA_RANGE);
    } else {
      CHECK(rc == MPI_SUCCESS, "%s + flush toward an attached region failed (class %d)",
            put ? "put" : "get", cls);
      if (!put) CHECK(got == 0x2a, "get read %lx, want 2a", got);
    }
  } else {
    int go;
    if (!put) *(long*)(mem + 64) = 0x2a;
    MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (detach) {
      MPI_OK(MPI_Win_detach(w, mem));
      CHECK(munmap(mem, LEN) == 0, "munmap failed");
    }
    MPI_OK(MPI_Send(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
  }
  MPI_OK(MPI_Win_unlock_all(w));
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 1 && !detach) {
    t_sync_own(w);
    if (put) CHECK(*(long*)(mem + 64) == v, "put left %lx, want %lx", *(long*)(mem + 64), v);
    MPI_OK(MPI_Win_detach(w, mem));
    munmap(mem, LEN);
  }
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  CHECK(t_size == 2, "needs 2 ranks");
  MPI_Win w;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
  for (int put = 0; put < 2; put++) {
    round_trip(w, put, 1);
    round_trip(w, put, 0);
  }
  MPI_OK(MPI_Win_free(&w));
  return t_finish("served_detached");
}
