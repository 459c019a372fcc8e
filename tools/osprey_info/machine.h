// What this machine offers osprey: cross-memory attach between processes, room in /dev/shm for
// node segments, CPUs, and from how many ranks on a node osprey waits as oversubscribed.
#pragma once

namespace osprey::info {

void print_machine();

}  // namespace osprey::info
