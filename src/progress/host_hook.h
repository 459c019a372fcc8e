// Target progress through the host's own progress loop where it offers a hook: Open MPI's
// opal_progress_register (looked up at run time, so MPICH builds simply find none).
#pragma once

namespace osprey::progress {

// True if the host will now call osprey's progress engine from its own.
bool register_host_hook();
void unregister_host_hook();

}  // namespace osprey::progress
