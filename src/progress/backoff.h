// How every blocking wait in osprey waits: spin a little, then yield the core, then sleep, so
// that ranks outnumbering cores still make progress. Long waits check that node peers live.
// On a node with more ranks than CPUs (progress/oversub.h) the CPU goes to the rank being
// waited for almost at once: a few spins, a few yields, then a sleep on the wait's doorbell
// (or futex word) that the releasing side rings; waits without one keep yielding and never
// sleep on a timer the peer could not shorten.
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/doorbell.h"
#include "progress/engine.h"

namespace osprey::progress {

class Backoff {
 public:
  Backoff();
  // One round of waiting.
  void pause();
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
    rounds_ = 0;
    sleep_us_ = 1;
    yield_start_ns_ = 0;
  }

 private:
  static constexpr uint32_t kSpin = 256;
  static constexpr uint32_t kYield = 256;
  // Oversubscribed: the peer is likely waiting for this CPU, so barely spin (a pause is 18 ns
  // here and a yield with nobody else to run 0.3 us: 32 spins cost 3 ranks on 2 CPUs 0.5 us
  // per fence, a third of it); then yield it for
  // a while before sleeping. A waiter that sleeps must be woken, and the woken rank preempts
  // its waker (it slept, so the scheduler owes it time): each epoch of fence or PSCW then costs
  // a context switch per rank. Yielding hands the CPU over as well, without that debt; Open
  // MPI's osc/sm only ever yields. Only where a yield likely reaches the rank waited for
  // (progress/oversub.h): with many ranks per CPU it mostly reaches other waiters, and other
  // processes take whole time slices; there yield briefly and sleep.
  static constexpr uint32_t kSpinOversub = 4;
  static constexpr uint32_t kYieldOversub = 4;
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
  uint32_t spin_, yield_;
  uint32_t rounds_ = 0;
  uint32_t sleep_us_ = 1;
  uint64_t next_check_ns_ = 0;
  uint64_t yield_start_ns_ = 0;
  uint64_t yield_budget_ns_ = 0;  // decided when the yield phase starts
};

// Polls the progress engine until done() holds; with a doorbell, sleeps on it when the node
// is oversubscribed.
template <class Done>
void wait_until(Done&& done, Doorbell* bell = nullptr) {
  if (done()) return;
  Backoff b;
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
