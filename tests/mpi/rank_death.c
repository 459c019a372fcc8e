/* A rank that dies mid-epoch: the last rank (the victim) is killed with SIGKILL at the point
 * named by argv[1], and rank 0 then waits for it there; rank 0 must not wait forever: osprey
 * notices the dead node peer and aborts the job with a message naming it.
 *   lock     the victim holds rank 0's exclusive lock; rank 0 locks its own window
 *   fence    the victim dies between two fences; rank 0 is in the second
 *   pscw     the victim started an access epoch to rank 0 and never completes it; rank 0 waits
 *   flush    rank 0 waits for the victim's reply to a get (the message path)
 * Launchers end the whole job the moment one of their processes dies, which would hide what
 * osprey does; so the victim's MPI process is a child of the process the launcher started,
 * which outlives it (until the abort ends the job). Rank 0 prints every rank's pid so that
 * the harness can check that nothing of theirs is left in /dev/shm. Other ranks wait in a
 * barrier that the abort ends. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/* The rank the launcher will give this process, before MPI_Init (MPICH's hydra, Open MPI). */
static int env_int(const char* a, const char* b) {
  const char* v = getenv(a);
  if (!v) v = getenv(b);
  return v ? atoi(v) : -1;
}

/* In the victim: fork; the child goes on to be the MPI process, the parent waits for it and
 * then stays until the job is ended (it exits with the child's status if the child exits). */
static void shield_from_launcher(void) {
  const int rank = env_int("PMI_RANK", "OMPI_COMM_WORLD_RANK");
  const int size = env_int("PMI_SIZE", "OMPI_COMM_WORLD_SIZE");
  if (rank < 0 || rank != size - 1) return;
  const pid_t child = fork();
  if (child == 0) return;
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  for (;;)
    pause();
}

static void die(void) {
  fflush(stdout);
  fflush(stderr);
  kill(getpid(), SIGKILL);
}

int main(int argc, char** argv) {
  shield_from_launcher();
  t_init(&argc, &argv);
  CHECK(argc > 1, "usage: rank_death lock|fence|pscw|flush");
  const char* point = argv[1];
  const int victim = t_size - 1;
  int64_t* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Group world, g0, gv;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0;
  MPI_Group_incl(world, 1, &zero, &g0);
  MPI_Group_incl(world, 1, &victim, &gv);
  int64_t v = 42, got = 0;
  int pid = (int)getpid();
  int* pids = malloc(sizeof(int) * (size_t)t_size);
  MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (t_rank == 0) {
    printf("pids:");
    for (int r = 0; r < t_size; r++)
      printf(" %d", pids[r]);
    printf("\n");
    fflush(stdout);
  }

  if (strcmp(point, "lock") == 0) {
    if (t_rank == victim) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
      MPI_OK(MPI_Win_flush(0, win)); /* the lock is taken by now */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == victim) die();
    if (t_rank == 0) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      MPI_OK(MPI_Win_unlock(0, win));
    }
  } else if (strcmp(point, "fence") == 0) {
    MPI_OK(MPI_Win_fence(0, win));
    if (t_rank == victim) die();
    if (t_rank == 0) MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, victim, 0, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_fence(0, win));
  } else if (strcmp(point, "pscw") == 0) {
    if (t_rank == victim) {
      MPI_OK(MPI_Win_start(g0, 0, win));
      MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
      die();
    }
    if (t_rank == 0) {
      MPI_OK(MPI_Win_post(gv, 0, win));
      MPI_OK(MPI_Win_wait(win));
    }
  } else if (strcmp(point, "flush") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == victim) die();
    if (t_rank == 0) {
      /* Ranks leave a barrier one after the other: the victim, still waiting in it, could serve
       * the get before it dies. The get goes once the victim is gone (its shield reaps it). */
      int waited_ms = 0;
      while (kill(pids[victim], 0) == 0) {
        CHECK(waited_ms < 10000, "the victim (process %d) did not die", pids[victim]);
        usleep(1000);
        waited_ms++;
      }
      MPI_OK(MPI_Win_lock_all(0, win));
      MPI_OK(MPI_Get(&got, 1, MPI_INT64_T, victim, 0, 1, MPI_INT64_T, win));
      MPI_OK(MPI_Win_flush(victim, win));
      MPI_OK(MPI_Win_unlock_all(win));
    }
  } else {
    CHECK(0, "unknown point %s", point);
  }
  /* Reached only if rank 0 was not stopped: the test fails (it must abort). */
  if (t_rank == 0) printf("rank_death: still running after the victim died at %s\n", point);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
