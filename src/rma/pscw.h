// Generalized active target epochs of one window (post/start/complete/wait). On node-local
// ranks they are words in the window segment and send no messages
// (after the SCC one-sided synchronization design, PASA 2016):
// - post sets the poster's bit in the match vector of every origin of its group;
// - start records its group and returns (trigger-only): each target's post is consumed by the
//   first operation to it, or by complete;
// - complete adds one to the completion counter of every target;
// - wait (or test) sees its counter reach the size of its post group and takes that much off.
// Toward the message path, posts and starts are counted, not sent (docs/NOTES.md), and
// complete is one request per target. Memory barriers follow the PSCW diagram of the
// MPICH "New RMA Design".
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "util/status.h"

namespace osprey::rma {

class Window;
struct TargetView;

class PscwEpochs {
 public:
  explicit PscwEpochs(Window& w) : w_(w) {}

  Status post(MPI_Group group, int assert);
  Status start(MPI_Group group, int assert);
  Status complete();
  Status wait();
  Status test(bool* done);

  // An operation toward t in the access epoch: t must be in the start group; the first one
  // sees t's post.
  Status access(const TargetView& t);
  bool exposed() const { return exposure_; }
  // Whether the access epoch saw the post of node-local target `local` (a fast target of the
  // window): the inline fast path (window_fast.h) then needs no group search.
  bool fast_ready(uint32_t local) const {
    return fast_ready_[local].load(std::memory_order_acquire) != 0;
  }

  // The node paths: words in the window segment.
  void post_words(const TargetView& t, int assert);
  void await_post(int local);  // consumes node-local target `local`'s post
  void complete_words(const TargetView& t);
  // The message path: counted, and a complete request.
  void count_post(int origin);
  void count_start(int target);
  void send_complete(int target);

 private:
  Status translate_group(MPI_Group g, std::vector<int>& ranks);
  bool exposure_done();  // the exposure epoch's origins all completed

  Window& w_;
  // Whether each target's post was consumed: threads of the access epoch may reach a target at
  // once; the first claims the post and waits for it, the others wait until it is seen.
  enum Seen : uint8_t { kNotSeen, kClaimed, kSeen };
  void see_post(std::atomic<uint8_t>& seen, const TargetView& t);
  void mark_fast(int rank, uint8_t ready);  // fast_ready_ of comm rank `rank`, if a fast target

  std::vector<int> start_ranks_;  // access epoch targets, ascending comm ranks
  std::unique_ptr<std::atomic<uint8_t>[]> start_seen_;  // start_seen_size_ entries, reused
  std::size_t start_seen_size_ = 0;
  std::vector<int> post_ranks_;                         // the last post group, kept for its storage
  std::vector<int> identity_;                           // 0, 1, 2, ...: translate_group's input
  std::unique_ptr<std::atomic<uint8_t>[]> fast_ready_;  // by node-local index, once allocated
  bool exposure_ = false;                               // between post and wait/test
  uint32_t exposure_size_ = 0;  // node-local origins that will complete (shm counter)
  uint32_t exposure_am_ = 0;    // origins on the message path that will complete
};

}  // namespace osprey::rma
