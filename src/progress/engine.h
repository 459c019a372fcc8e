// The one progress engine. Progress runs target work (requests of any window, from any origin),
// so it runs only at safe points: where the calling thread holds none of the engine state that
// handling a request takes (a window's message-path lock, an endpoint's lock, the poller role).
// Such state is held through EngineLock (or marked by EngineSection); poll() on a thread that
// holds any does nothing, and requests wait in the host's queue for the next safe point: the
// top of an osprey call, a wait that released its locks, a blocking host call, the progress
// thread. So a host that calls back into osprey from inside its own calls (Open MPI's progress
// hook) cannot make a request run in the middle of another.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

namespace osprey::progress {

// Whether threads may be inside the engine at the same time: the host provides
// MPI_THREAD_MULTIPLE, or osprey runs its progress thread. Assumed until MPI_Init (interposed)
// learns otherwise, and set only there, before any engine lock exists to be held.
extern std::atomic<bool> concurrent_threads;
void set_concurrent(bool on);

// The engine's locks. With one thread in the engine at a time (MPI_THREAD_SINGLE, FUNNELED or
// SERIALIZED: the program orders its calls) they cost nothing: a put and flush on the message
// path used to take a dozen uncontended mutexes, each an atomic read-modify-write, and the
// first one after a send waited for the send's stores to leave for the peer's cache.
// Without threads they still remember being held, so that a host calling back into osprey
// from inside a call osprey made while holding one (Open MPI's progress hook in a PMPI_Wait of
// an endpoint being torn down) finds try_lock failing, as with a real mutex.
class EngineMutex {
 public:
  void lock() {
    if (concurrent_threads.load(std::memory_order_relaxed))
      m_.lock();
    else
      held_ = true;
  }
  bool try_lock() {
    if (concurrent_threads.load(std::memory_order_relaxed)) return m_.try_lock();
    if (held_) return false;
    held_ = true;
    return true;
  }
  void unlock() {
    if (concurrent_threads.load(std::memory_order_relaxed))
      m_.unlock();
    else
      held_ = false;
  }

 private:
  std::mutex m_;
  bool held_ = false;
};

// Adds d to a counter that several windows' state changes share (under different locks): a
// read-modify-write only where threads may race; else a plain load and store, since a locked
// instruction costs a put on the message path about as much as the rest of its bookkeeping.
inline void count(std::atomic<std::size_t>& c, std::ptrdiff_t d) {
  const auto delta = static_cast<std::size_t>(d);
  if (concurrent_threads.load(std::memory_order_relaxed))
    c.fetch_add(delta, std::memory_order_relaxed);
  else
    c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

using Poller = bool (*)();  // returns true if it did any work

// Adds a poller (transport). At most a handful are registered; never removed while running.
void add_poller(Poller p);

// Sets the check for operations node peers left for this process in shared memory
// (rma/served_ops.h), which poll() runs too. Unlike a poller it does not keep waits from
// sleeping: a peer whose operation waits too long applies it itself.
void set_mail_check(Poller p);

// Runs every poller once; returns true if any did work. Does nothing outside a safe point.
bool poll();

// Whether any poller was ever registered (a message endpoint existed): requests may then
// arrive that only this process's progress serves, so waits must not sleep through them.
bool has_pollers();

// What a low-level wait (lock words, node barrier, setup messages) does each round besides
// backing off. Such waits never decide to run target work themselves: their caller passes
// nullptr (just wait) or `poll` (the caller is at a safe point and the wait may depend on
// requests this process must serve).
using Idle = bool (*)();

// Marks this thread as inside engine state for the object's lifetime.
class EngineSection {
 public:
  EngineSection();
  ~EngineSection();
  EngineSection(const EngineSection&) = delete;
  EngineSection& operator=(const EngineSection&) = delete;
};

// A std::unique_lock on a lock that request handling takes: while it is held, this thread is
// not at a safe point.
class EngineLock {
 public:
  explicit EngineLock(EngineMutex& m);
  ~EngineLock();
  EngineLock(const EngineLock&) = delete;
  EngineLock& operator=(const EngineLock&) = delete;
  void lock();
  void unlock();

 private:
  std::unique_lock<EngineMutex> lk_;
};

}  // namespace osprey::progress
