// How every blocking wait in osprey waits: spin a little, then yield the core, then sleep, so
// that ranks outnumbering cores still make progress. Long waits check that node peers live.
// On a node with more ranks than CPUs (progress/oversub.h) the CPU goes to the rank being
// waited for almost at once: a few spins, then yields for as long as the wait lasts; only on a
// machine crowded by other processes a few yields, then a sleep on the wait's doorbell (or
// futex word) that the releasing side rings. Waits without one keep yielding and never sleep
// on a timer the peer could not shorten.
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/doorbell.h"
#include "progress/engine.h"
#include "progress/host_yield.h"
#include "progress/node_waiters.h"
#include "progress/oversub.h"

namespace osprey::progress {

class Backoff {
 public:
  // kBusy: where the wait replaces one of the host's that busy-polls (MPI_Barrier), keep doing
  // so unless the node is oversubscribed. A waiter that yields or sleeps slows its node peer's
  // work: with the target of a put + flush loop waiting in MPI_Barrier, 8 B puts to a window
  // over user memory took 0.52 us beside a spinning target, 0.58 beside a sleeping one, 0.65
  // beside a yielding one (each yield is a system call; the two CPUs here are likely one
  // core's hyperthreads).
  // kBusyUnlessThreads: the same for a wait on another process's step in a synchronization
  // (fence, PSCW; the host's own busy-poll), but only while one thread at a time is in MPI: threads
  // of one process may wait on each other there, and outnumber CPUs.
  enum class Waiting { kPolite, kBusy, kBusyUnlessThreads };
  explicit Backoff(Waiting w = Waiting::kPolite);
  // One round of waiting.
  void pause();
  // One round of a wait whose every round runs the host's progress (a test of a host request):
  // that test is the spin, so no CPU pause is added to it while spinning (off an oversubscribed
  // node, and while one thread at a time is in MPI: another thread may be the poller, and the
  // round then tests nothing); past spinning, as pause().
  void pause_polled() {
    if (!oversub_ && rounds_ < spin_ && !concurrent_threads.load(std::memory_order_relaxed)) {
      ++rounds_;
      return;
    }
    pause();
  }
  // Like pause(), but sleeps on a shared futex word while it still holds `seen`.
  void pause_on(std::atomic<uint32_t>* word, uint32_t seen);
  // Like pause(), but on an oversubscribed node, once past spinning, sleeps on `bell` (unless
  // done() holds) until the releasing side rings it. Not in a process with message endpoints:
  // a request this process must serve would wait for the sleep to end.
  template <class Done>
  void pause_on(Doorbell& bell, Done&& done, long max_sleep_ns = kBellSleepNs) {
    if (!oversub_ || !sleeping() || has_pollers()) return pause();
    slow_checks();
    sleep_on(bell, done, max_sleep_ns);
  }
  bool sleeping() const { return rounds_ >= spin_ + yield_ && yielded_enough(); }
  // Work showed up: start over with spinning (a target serving a stream of requests must not
  // fall asleep between them).
  void reset() {
    mark_.clear();
    rounds_ = 0;
    sleep_us_ = 1;
    yield_start_ns_ = 0;
    yields_ = 0;
  }

 private:
  static constexpr uint32_t kSpin = 256;
  static constexpr uint32_t kYield = 256;
  // Oversubscribed: the peer is likely waiting for this CPU, so do not spin (a pause is 18 ns
  // here and a yield with nobody else to run 0.3 us: 32 spins cost 3 ranks on 2 CPUs 0.5 us
  // per fence, a third of it, and 4 spins still 5-10 % of a PSCW epoch at 3, 4 and 8 ranks
  // once the ranks share a session); yield it at once, for as long as the wait lasts, as Open
  // MPI's osc/sm does. A process with message endpoints spins a few rounds first: each of its
  // rounds tests the host's progress, which is how its messages arrive (yielding after the
  // first took a message-path PSCW epoch at 3 ranks from 1.1 to 1.55 us).
  // A waiter that sleeps must be woken, and the woken rank preempts its waker (it slept, so
  // the scheduler owes it time). Worse, a sleeper and the waiters that keep yielding fall out
  // of step: the scheduler runs whoever yielded least first (each yield moves the yielder's
  // deadline a time slice later), so a rank that yielded through a long wait before sleeping
  // waits, once it has work, until the others have yielded as often. 8 ranks on 2 CPUs took
  // 50-1400 us per fence yielding 1 ms and then sleeping, and 6-9 us yielding throughout. Only
  // where other processes crowd the machine (progress/oversub.h) do waits yield briefly and
  // then sleep, as a yield there hands a time slice to an outsider.
  static constexpr uint32_t kSpinOversub = 0;
  static constexpr uint32_t kSpinOversubPolling = 4;
  static constexpr uint32_t kYieldOversub = 4;
  static constexpr uint64_t kYieldForever = UINT64_MAX;
  // How often a busy wait checks its peers' liveness (about every millisecond).
  static constexpr uint32_t kBusyRoundsPerCheck = 1u << 16;
  // How often a wait that yields throughout checks its peers' liveness and the crowd.
  static constexpr uint32_t kYieldsPerCheck = 64;
  // A yield that returns this late handed the CPU to something that ran a time slice (the
  // node's ranks, waiting, pass it on within microseconds): maybe an outsider (oversub.h).
  static constexpr uint64_t kSlowYieldNs = 250'000;
  // Only every so many yields are timed: two clock reads cost a sixth of a yield that finds
  // the CPU free, and a crowd makes most yields slow.
  static constexpr uint32_t kYieldsPerTimedYield = 8;
  // Not oversubscribed, a wait yields for a while too before it sleeps: on a machine loaded by
  // other processes the peer is often off its CPU, and a sleep (50 us at least, the timer
  // slack) that starts just before the peer's release costs every epoch that much; a yielding
  // waiter is back as soon as the scheduler gets to it.
  static constexpr uint64_t kYieldLongNs = 1'000'000;
  static constexpr uint64_t kYieldBriefNs = 16'000;
  // A ring ends the sleep; the timeout only bounds how long a liveness check can wait.
  static constexpr long kBellSleepNs = 20'000'000;
  void slow_checks();
  // Whether the yield phase has run its time (from the first yield).
  bool yielded_enough() const;
  bool oversub_;
  bool busy_;  // spins only (kBusy, not oversubscribed)
  uint32_t spin_, yield_;
  uint32_t rounds_ = 0;
  uint32_t sleep_us_ = 1;
  uint64_t next_check_ns_ = 0;
  uint64_t yield_start_ns_ = 0;
  uint64_t yield_budget_ns_ = 0;  // decided when the yield phase starts
  uint32_t yields_ = 0;
  WaiterMark mark_;  // set past spinning on an oversubscribed node
  HostYieldOff host_yield_off_;
};

// For the calls a program may spin on, each returning at once (a flush of operations on its
// own memory, MPI_Win_sync before it reads a flag, an unlock, MPI_Win_test): on an oversubscribed
// node, yields the CPU every so many calls since this thread last gave it away in a wait, as Open
// MPI's progress yields whenever it finds nothing to do. A spinner's own waits may never get to
// yield (its own requests keep them busy), and a yield only hands the CPU to tasks queued on the
// same CPU: so the spinner must, or the rank it waits for, queued behind it, waits for a time
// slice to end (3 ranks on 2 CPUs took 3-8 ms per hand-over of a lock spun on).
void pace_spinning_caller_slow();
inline void pace_spinning_caller() {
  if (oversubscribed()) pace_spinning_caller_slow();
}

// Polls the progress engine until done() holds; with a doorbell, sleeps on it when the node
// is oversubscribed.
template <class Done>
void wait_until(Done&& done, Doorbell* bell = nullptr,
                Backoff::Waiting w = Backoff::Waiting::kPolite) {
  if (done()) return;
  Backoff b(w);
  for (;;) {
    const bool did = poll();
    if (done()) return;
    if (did)
      b.reset();
    else if (bell)
      b.pause_on(*bell, done);
    else
      b.pause();
  }
}

}  // namespace osprey::progress
