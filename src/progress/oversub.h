// Whether this node runs more ranks than the CPUs they may run on. Then a rank that waits
// usually waits for a rank that has no CPU, and every moment it keeps its own CPU delays the
// very event it waits for: waits must hand the CPU over at once (progress::Backoff reads this)
// and sleep where the releasing side can wake them (progress::Doorbell), never on a timer.
#pragma once

#include <sched.h>

#include <cstdint>

#include <span>

namespace osprey::progress {

// CPUs in the union of the given affinity masks.
int cpus_in_union(std::span<const cpu_set_t> masks);

// The decision for a node of `node_ranks` ranks whose union of masks holds `cpus` CPUs, with
// OSPREY_OVERSUBSCRIBED applied (1 or 0 forces it, auto decides).
bool decide_oversubscribed(int node_ranks, int cpus);

// Records a node's decision for this process (once set it stays set: a communicator that sees
// only part of the node cannot undo what the whole node showed), its ranks and their CPUs.
void note_oversubscribed(bool yes, int node_ranks, int cpus);

// Whether a waiter that yields its CPU hands it to the node's ranks (the one it waits for, or
// another waiter that passes it on at once) rather than to a crowd of other processes, each of
// which would take a time slice. Crowded means: at least twice as many runnable tasks on the
// machine as the node has ranks (/proc/loadavg, read at most every 10 ms), or, for 100 ms,
// what note_slow_yield found.
bool yield_reaches_peers();

// A yield that returned at `now` (CLOCK_MONOTONIC ns) took a time slice's worth. If at least two
// tasks more than the node's ranks are runnable, other processes compete: the machine counts as
// crowded, and the answer is true.
bool note_slow_yield(uint64_t now);

// This process's view (a relaxed load; false until some communicator's setup decided).
bool oversubscribed();

// Sets or clears this process's view (tests only).
void set_oversubscribed_for_tests(bool yes);

}  // namespace osprey::progress
