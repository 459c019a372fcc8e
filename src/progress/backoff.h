// How every blocking wait in osprey waits: spin a little, then yield the core, then sleep, so
// that ranks outnumbering cores still make progress. Long waits check that node peers live.
#pragma once

#include <atomic>
#include <cstdint>

#include "progress/engine.h"

namespace osprey::progress {

class Backoff {
 public:
  // One round of waiting.
  void pause();
  // Like pause(), but sleeps on a shared futex word while it still holds `seen`.
  void pause_on(std::atomic<uint32_t>* word, uint32_t seen);
  bool sleeping() const { return rounds_ >= kSpin + kYield; }
  // Work showed up: start over with spinning (a target serving a stream of requests must not
  // fall asleep between them).
  void reset() {
    rounds_ = 0;
    sleep_us_ = 1;
  }

 private:
  static constexpr uint32_t kSpin = 256;
  static constexpr uint32_t kYield = 256;
  void slow_checks();
  uint32_t rounds_ = 0;
  uint32_t sleep_us_ = 1;
  uint64_t next_check_ns_ = 0;
};

// Polls the progress engine until done() holds.
template <class Done>
void wait_until(Done&& done) {
  if (done()) return;
  Backoff b;
  for (;;) {
    const bool did = poll();
    if (done()) return;
    if (did)
      b.reset();
    else
      b.pause();
  }
}

}  // namespace osprey::progress
