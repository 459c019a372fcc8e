// Anchor handle -> osprey window, looked up on every RMA call without locks.
#pragma once

#include <mpi.h>

#include "util/handle_key.h"
#include "util/handle_map.h"

namespace osprey::rma {

class Window;

HandleMap<Window>& registry();

inline Window* find_window(MPI_Win w) { return registry().find(handle_key(w)); }

}  // namespace osprey::rma
