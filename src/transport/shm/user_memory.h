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

// A shared memory file mapped here: its file descriptor here, its address here and its mapped
// length.
struct Region {
  int fd = -1;
  uint64_t base = 0;
  uint64_t len = 0;
};

// The memory of an MPI_Win_create window, [p, p + n), as a file node peers can map: the
// allocation from alloc that holds it, or else its pages (malloc, the heap, static arrays)
// moved into a new shared memory file in place, at the same addresses with the same contents.
// Refused (false) for more than `max` bytes, memory that is not private anonymous, pages that
// overlap an earlier move without being inside it, and pages that hold bytes outside the window
// which another thread might write while they move (only one thread, or the pages of one large
// malloc block, are safe). Pages already moved or from alloc are found and counted instead. *out
// describes the file; *moved says whether release_in_place must be called for it.
bool share_in_place(const void* p, std::size_t n, std::size_t max, Region* out, bool* moved);
// The last window over moved pages is gone: they become private memory again (same contents),
// where they can be moved back safely; otherwise they stay shared until the program unmaps them.
void release_in_place(uint64_t base);

// Window memory that node peers reach by cross-memory attach (created windows whose pages did
// not move, attached regions of dynamic windows): a peer may write it at any time, so
// share_in_place and release_in_place never move pages that hold any of it. Counted: the same
// range may be exposed by several windows.
void expose(uint64_t base, uint64_t len);
void unexpose(uint64_t base, uint64_t len);

// Maps a peer's allocation (pid, fd, len), or returns nullptr.
void* map_peer(int pid, int fd, std::size_t len);

}  // namespace osprey::shm::user_memory
