#include "progress/node_waiters.h"

namespace osprey::progress {
namespace {

std::atomic<std::atomic<uint32_t>*> shared_word{nullptr};
std::atomic<int> ranks{0};

}  // namespace

void share_node_waiters(std::atomic<uint32_t>* word, int node_ranks) {
  ranks.store(node_ranks, std::memory_order_relaxed);
  shared_word.store(word, std::memory_order_release);
}

bool node_peers_all_waiting() {
  const std::atomic<uint32_t>* w = shared_word.load(std::memory_order_acquire);
  return w && static_cast<int>(w->load(std::memory_order_relaxed)) + 1 >=
                  ranks.load(std::memory_order_relaxed);
}

void WaiterMark::set_slow() {
  std::atomic<uint32_t>* w = shared_word.load(std::memory_order_acquire);
  if (!w) return;
  w->fetch_add(1, std::memory_order_relaxed);
  word_ = w;
}

void WaiterMark::clear_slow() {
  word_->fetch_sub(1, std::memory_order_relaxed);
  word_ = nullptr;
}

}  // namespace osprey::progress
