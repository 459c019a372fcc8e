// A wake-up word for waits on shared memory that other processes release: the waiter sleeps on
// a futex and the releasing side wakes it. Used where ranks outnumber CPUs (progress/oversub.h):
// there the rank being waited for needs the waiter's CPU, and a timer would keep the waiter
// asleep after the release. Ringing costs one load when nobody sleeps.
//
// Why no wake-up is lost: the waiter announces itself (sleepers, a full barrier), reads rings,
// then checks its condition; the releaser stores its condition, has a full barrier, then reads
// sleepers. Either the releaser sees the sleeper (and bumps rings, so a futex wait on the value
// read before returns at once), or the waiter's check sees the condition.
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/oversub.h"
#include "util/cpu.h"
#include "util/futex.h"

namespace osprey::progress {

struct Doorbell {
  std::atomic<uint32_t> rings;     // the futex word: bumped by every ring that found a sleeper
  std::atomic<uint32_t> sleepers;  // waiters between announcing themselves and leaving
};

// After a store that may end someone's wait (a plain store: this adds the full barrier).
inline void ring(Doorbell& d) {
  cpu::mem_sync();
  if (d.sleepers.load(std::memory_order_relaxed) == 0) return;
  d.rings.fetch_add(1, std::memory_order_seq_cst);
  futex::wake_all(&d.rings);
}

// After a locked read-modify-write, which already is the full barrier on x86.
inline void ring_after_rmw(Doorbell& d) {
  cpu::mem_sync_beside_rmw();
  if (d.sleepers.load(std::memory_order_relaxed) == 0) return;
  d.rings.fetch_add(1, std::memory_order_seq_cst);
  futex::wake_all(&d.rings);
}

// What the engine's releasing sides call: waiters sleep on doorbells only on an oversubscribed
// node, so elsewhere a release costs nothing more (not even the doorbell's cache line). A
// process that saw oversubscription while a node peer did not (only possible through a
// communicator covering part of the node) has its sleeps end by their timeout instead.
inline void notify(Doorbell& d) {
  if (oversubscribed()) ring(d);
}
inline void notify_after_rmw(Doorbell& d) {
  if (oversubscribed()) ring_after_rmw(d);
}

// Sleeps on d unless done() holds once the waiter is announced; returns on a ring, a spurious
// wake or after timeout_ns (a safety net only: rings end the sleep).
template <class Done>
void sleep_on(Doorbell& d, Done&& done, long timeout_ns) {
  d.sleepers.fetch_add(1, std::memory_order_seq_cst);
  const uint32_t seen = d.rings.load(std::memory_order_seq_cst);
  if (!done()) futex::wait(&d.rings, seen, timeout_ns);
  d.sleepers.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace osprey::progress
