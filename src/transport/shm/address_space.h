// What this process's address space holds around a window's memory, read from /proc/self: the
// facts user_memory::share_in_place needs before it moves pages into shared memory, and back.
#pragma once

#include <cstdint>

namespace osprey::shm::address_space {

// True if every page of [lo, hi) is mapped readable and writable, private and anonymous (the
// heap, malloc's own mappings, the program's zero-initialized data), none is a huge-TLB page,
// and none lies in the mapping that holds `stack` (an address on the calling thread's stack,
// whose frames change while the pages move).
bool private_anonymous(uint64_t lo, uint64_t hi, uint64_t stack);

// True if [lo, hi) is still mapped, all of it, from the file with this inode (a memfd).
bool maps_file(uint64_t lo, uint64_t hi, uint64_t inode);

// True if every page of [lo, hi) is mapped.
bool mapped(uint64_t lo, uint64_t hi);

}  // namespace osprey::shm::address_space
