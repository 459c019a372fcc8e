/* Preloaded into MPICH's launcher by bench/engines.py: Hydra's proxy makes every rank the
 * leader of a session of its own, and with autogroup scheduling on (Debian's default) the
 * kernel then gives each rank an equal share of an oversubscribed CPU whether it works or
 * waits, where Open MPI's launcher keeps its ranks in the caller's session. Refusing the new
 * session puts both launchers' ranks under the same scheduling, as turning binding off puts
 * them on the same placement (docs/BENCHMARKING.md). Ranks never call setsid. */
#include <sys/types.h>
#include <unistd.h>

pid_t setsid(void) {
  return getsid(0);
}
