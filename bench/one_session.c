/* Preloaded into MPICH's launcher by bench/engines.py: Hydra's proxy makes every rank the
 * leader of a session of its own, and with autogroup scheduling on (Debian's default) the
 * kernel then gives each rank an equal share of an oversubscribed CPU whether it works or
 * waits, where Open MPI's launcher keeps its ranks in the caller's session. Staying in the
 * session puts both launchers' ranks under the same scheduling, as turning binding off puts
 * them on the same placement (docs/BENCHMARKING.md). Each rank still leads a process group of
 * its own, which the launcher kills it by when a run is cut short. Ranks never call setsid. */
#include <sys/types.h>
#include <unistd.h>

pid_t setsid(void) {
  if (setpgid(0, 0) != 0) return -1;
  return getpid();
}
