// Detects node peers that died, so that a wait on shared memory they would have updated does
// not spin forever: the job is aborted with a message instead.
#pragma once

#include <sys/types.h>

namespace osprey::progress {

// `world_rank` names the peer in the message (its rank in MPI_COMM_WORLD).
void watch_peer(pid_t pid, int world_rank);
void unwatch_peer(pid_t pid);

// Aborts the job if a watched peer is gone. Cheap enough to call every ~100 ms.
void check_peers();

// True if the process exists and is not a zombie.
bool process_alive(pid_t pid);

}  // namespace osprey::progress
