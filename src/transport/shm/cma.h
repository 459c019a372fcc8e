// Cross-memory attach: moves bytes to and from a node peer's private memory with
// process_vm_writev/readv. It cannot do atomics; accumulates on such memory hold lock stripes.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>

#include "util/status.h"

namespace osprey::shm::cma {

// Lets any process of this user attach (needed under Yama ptrace_scope=1); harmless elsewhere.
void allow_attach();

// True if `nbytes` at `remote` in process `pid` can be read.
bool probe(pid_t pid, const void* remote, std::size_t nbytes);

// Gathers the local iovecs into the remote ones (total lengths must be equal).
Status write(pid_t pid, const iovec* local, std::size_t nlocal, const iovec* remote,
             std::size_t nremote);
Status read(pid_t pid, const iovec* local, std::size_t nlocal, const iovec* remote,
            std::size_t nremote);

// Single-range forms.
Status write(pid_t pid, void* remote, const void* local, std::size_t n);
Status read(pid_t pid, const void* remote, void* local, std::size_t n);

}  // namespace osprey::shm::cma
