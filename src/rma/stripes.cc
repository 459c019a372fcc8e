#include "rma/stripes.h"

#include <algorithm>

#include "progress/backoff.h"

namespace osprey::rma {

std::size_t Stripes::index(int local, uint64_t key) const {
  // Fibonacci hashing: the high half of the product mixes every key bit, so neighbouring
  // elements spread over the stripes whatever their count (a power of two by default).
  const uint64_t h =
      ((key >> 4) ^ static_cast<uint64_t>(local) * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>((h >> 32) % v_->layout().stripes);
}

void Stripes::cover(int local, uint64_t lo, uint64_t hi, std::vector<std::size_t>& set) const {
  if (hi <= lo) return;
  const std::size_t n = v_->layout().stripes;
  const uint64_t first = lo >> 4, last = (hi - 1) >> 4;
  if (last - first + 1 >= n || set.size() >= n) {
    set.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      set[i] = i;
    return;
  }
  for (uint64_t g = first; g <= last; ++g)
    set.push_back(index(local, g << 4));
}

void spin_lock_contended(std::atomic<uint32_t>& w, std::memory_order order) {
  progress::Backoff b;
  for (;;) {
    while (w.load(std::memory_order_relaxed) != 0)
      b.pause();
    if (w.exchange(1, order) == 0) return;
  }
}

void Stripes::lock(std::size_t i) const {
  spin_lock(v_->stripe(i).word);
}

void Stripes::unlock(std::size_t i) const {
  spin_unlock(v_->stripe(i).word);
}

Stripes::Guard::Guard(const Stripes& s, std::vector<std::size_t>& set) : s_(s), set_(set) {
  std::sort(set_.begin(), set_.end());
  set_.erase(std::unique(set_.begin(), set_.end()), set_.end());
  for (std::size_t i : set_)
    s_.lock(i);
}

Stripes::Guard::~Guard() {
  for (auto it = set_.rbegin(); it != set_.rend(); ++it)
    s_.unlock(*it);
}

}  // namespace osprey::rma
