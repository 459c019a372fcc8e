// Memory that MPI_Alloc_mem hands out: a shared memory file per allocation (a memfd), mapped
// here, so that node peers can map it too when a window is created over it and reach it with
// loads, stores and CPU atomics instead of cross-memory attach. Peers open the file through
// /proc/<pid>/fd/<fd> (the same rights as cross-memory attach), so nothing outlives a crash.
#pragma once

#include <cstddef>
#include <cstdint>

namespace osprey::shm::user_memory {

// Page-rounded shared memory of at least n bytes, or nullptr (n == 0, too many live
// allocations, no memfd): the caller falls back to the host's MPI_Alloc_mem.
void* alloc(std::size_t n);
// False if p did not come from alloc.
bool free(void* p);

// The allocation holding [p, p + n), if any: its file descriptor here, its address here and
// its mapped length.
struct Region {
  int fd = -1;
  uint64_t base = 0;
  uint64_t len = 0;
};
bool find(const void* p, std::size_t n, Region* out);

// Maps a peer's allocation (pid, fd, len), or returns nullptr.
void* map_peer(int pid, int fd, std::size_t len);

}  // namespace osprey::shm::user_memory
