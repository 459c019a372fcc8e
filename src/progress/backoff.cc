#include "progress/backoff.h"

#include <sched.h>
#include <time.h>

#include "progress/liveness.h"
#include "progress/oversub.h"
#include "util/clock.h"
#include "util/cpu.h"
#include "util/futex.h"

namespace osprey::progress {
namespace {

constexpr uint64_t kCheckPeriodNs = 100'000'000;  // liveness check while sleeping
constexpr uint32_t kMaxSleepUs = 256;
// A put + flush to node memory takes 30-60 ns and a yield that finds nobody queued 0.3 us:
// pacing costs such a loop a third at most, and a spinner hands its CPU over within ~1 us.
constexpr uint32_t kCallsPerYield = 16;
// pace_spinning_caller's calls since this thread last gave its CPU away in a wait (which a program
// that waits in barriers, fences or for replies does each round: no pacing needed there).
thread_local uint32_t calls_since_wait = 0;

}  // namespace

void Backoff::slow_checks() {
  const uint64_t t = monotonic_ns();
  if (next_check_ns_ == 0) {
    next_check_ns_ = t + kCheckPeriodNs;
  } else if (t >= next_check_ns_) {
    next_check_ns_ = t + kCheckPeriodNs;
    check_peers();
  }
}

Backoff::Backoff(Waiting w)
    : oversub_(oversubscribed()),
      busy_(!oversub_ &&
            (w == Waiting::kBusy || (w == Waiting::kBusyUnlessThreads &&
                                     !concurrent_threads.load(std::memory_order_relaxed)))),
      spin_(!oversub_       ? kSpin
            : has_pollers() ? kSpinOversubPolling
                            : kSpinOversub),
      yield_(oversub_ ? kYieldOversub : kYield) {}

bool Backoff::yielded_enough() const {
  return yield_start_ns_ && monotonic_ns() - yield_start_ns_ >= yield_budget_ns_;
}

void Backoff::pause() {
  if (busy_) {
    cpu::relax();
    if (++rounds_ % kBusyRoundsPerCheck == 0) slow_checks();
    return;
  }
  if (rounds_ < spin_) {
    ++rounds_;
    cpu::relax();
    return;
  }
  calls_since_wait = 0;
  // A wait in a process with message endpoints needs its CPU: it serves requests and advances
  // its own replies (node_waiters.h).
  if (oversub_ && !has_pollers()) mark_.set();
  if (!sleeping()) {
    if (rounds_ < spin_ + yield_) ++rounds_;
    if (!yield_start_ns_) {
      yield_start_ns_ = monotonic_ns();
      yield_budget_ns_ = !oversub_               ? kYieldLongNs
                         : yield_reaches_peers() ? kYieldForever
                                                 : kYieldBriefNs;
    }
    if (yield_budget_ns_ != kYieldForever) {
      sched_yield();
      return;
    }
    if (++yields_ % kYieldsPerCheck == 0) {
      slow_checks();
      if (!yield_reaches_peers()) yield_budget_ns_ = kYieldBriefNs;
    }
    if (yields_ % kYieldsPerTimedYield != 0) {
      sched_yield();
      return;
    }
    const uint64_t t0 = monotonic_ns();
    sched_yield();
    const uint64_t t1 = monotonic_ns();
    if (t1 - t0 > kSlowYieldNs && note_slow_yield(t1)) yield_budget_ns_ = kYieldBriefNs;
    return;
  }
  slow_checks();
  if (oversub_) {
    // No doorbell here: a timer would keep this rank asleep after the peer released it.
    sched_yield();
    return;
  }
  timespec ts{0, static_cast<long>(sleep_us_) * 1000};
  nanosleep(&ts, nullptr);
  if (sleep_us_ < kMaxSleepUs) sleep_us_ *= 2;
}

void Backoff::pause_on(std::atomic<uint32_t>* word, uint32_t seen) {
  if (!sleeping()) {
    pause();
    return;
  }
  slow_checks();
  futex::wait(word, seen, 1'000'000);
}

void pace_spinning_caller_slow() {
  if (++calls_since_wait < kCallsPerYield) return;
  calls_since_wait = 0;
  if (!node_peers_all_waiting()) sched_yield();
}

}  // namespace osprey::progress
