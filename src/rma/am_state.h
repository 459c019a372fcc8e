// What a window keeps for its message path: the origin's operation table and epoch counters,
// and the target's per-origin queues, lock grants, fence signals and PSCW completions.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "datatype/type_info.h"
#include "progress/engine.h"
#include "rma/op_table.h"
#include "rma/shm_lock.h"
#include "transport/am/packet.h"
#include "transport/am/transfer.h"

namespace osprey::rma {

// A request the target could not finish when it arrived (see Window::am_execute).
struct Deferred {
  enum class Stage : uint8_t { kGate, kLayout, kBatchData, kPayload, kRun, kRetire };
  const char* msg = nullptr;  // in the receive slot, or in `copy` once the request waits
  std::vector<char> copy;     // a waiting request's own copy (the slot takes the next one)
  std::size_t n = 0;
  Stage stage = Stage::kGate;
  am::Transfer layout_in;    // a layout that comes separately, into `layout`
  am::Transfer payload_in;   // a payload that comes separately, into the window or `data`
  std::vector<char> layout;  // a layout that came separately
  std::vector<char> data;    // a payload that came separately (accumulates)
  bool layout_posted = false;
  bool payload_posted = false;
  am::Transfer batch_in;  // batched puts' data (kBatchPayload), scattered into the window
  // Where it lands instead when its places overlap, then copied in order to batch_places (a
  // receive datatype may not overlap itself), and where puts out of range land.
  std::vector<char> discard;
  std::vector<am::Piece> batch_places;
  bool batch_posted = false;
  am::Buffer reply;               // the reply being built: batched gets' data, then the operation's
  std::vector<am::Piece> pieces;  // batched gets' data sent from window memory (else in reply)
  std::vector<am::Piece> alone;   // batched gets' data sent in messages of their own
  bool alone_sent = false;
  bool replied = false;  // the operation answered the origin itself
  int status = 0;        // error class of the operation
};

// Target side: everything about one origin.
struct OriginState {
  std::deque<Deferred> queue;               // requests in arrival order; the head blocks the rest
  shm_lock::AsyncLock lock;                 // the origin's passive-target lock on this window
  uint32_t pscw_posts = 0;                  // exposure epochs posted to this origin
  uint32_t window_sends = 0;                // replies to it still being sent from window memory
  std::unique_ptr<dt::TypeInfo[]> layouts;  // its layout slots (packet.h), made at first use
  int error = 0;  // an error of a request without reply, told at the next ack
};

// Ranks, tested at the cost of an index (a hash probe was most of the lock check every
// message-path flush makes under lock_all) and listed in the order they came.
class RankSet {
 public:
  bool contains(int r) const {
    return static_cast<std::size_t>(r) < in_.size() && in_[static_cast<std::size_t>(r)];
  }
  void insert(int r) {
    const auto i = static_cast<std::size_t>(r);
    if (i >= in_.size()) in_.resize(i + 1);
    if (in_[i]) return;
    in_[i] = 1;
    members_.push_back(r);
  }
  void clear() {
    for (int r : members_)
      in_[static_cast<std::size_t>(r)] = 0;
    members_.clear();
  }
  const std::vector<int>& members() const { return members_; }

 private:
  std::vector<char> in_;
  std::vector<int> members_;
};

// Guarded by `mu`, the window's message-path lock: taken by the origin side for short steps
// (never across a wait: see Window::am_pause) and by the endpoint's poller while it hands this
// window a request or lets it advance. Below it only the endpoint's own lock is ever taken.
struct AmState {
  progress::EngineMutex mu;
  // Origin side.
  OpTable table;
  uint32_t fence_epoch = 0;                       // fences called so far
  std::unordered_map<int, uint32_t> pscw_starts;  // access epochs started toward each target
  RankSet lockall_locked;                         // lock_all, per-target protocol: lock sent
  bool lockall_window_protocol = false;           // lock_all fell back to locking every rank
  bool unlocking_all = false;                     // inside unlock_all: no protocol switch
  int error = 0;                                  // a target reported an error: tell at sync
  bool reaped = false;         // the progress engine just reaped every target (see am_wait_elem)
  uint32_t empty_flushes = 0;  // flushes with nothing toward their target (am_flush)
  // The type ids each target holds in its layout slots for this window, and which to fill next.
  struct LayoutSlots {
    uint64_t ids[am::kLayoutSlots] = {};
    uint32_t next = 0;
  };
  std::unordered_map<int, LayoutSlots> layouts_sent;
  // Target side.
  std::unordered_map<int, OriginState> origins;
  int last_origin = -1;
  OriginState* last_state = nullptr;
  // Scratch space of request execution, reused so that a request allocates nothing.
  dt::TypeInfo scratch_type;
  std::vector<char> scratch_layout;
  std::vector<char> scratch_operand, scratch_old;
  std::vector<OpElem*> scratch_gets;      // the gets batched in the request being issued
  std::vector<OpElem*> scratch_puts;      // the puts it carries by reference
  std::vector<am::Piece> scratch_pieces;  // where a reply scatters
  // Requests waiting in origin queues; changed under mu, read without it too (a hint to the
  // progress engine, see Window::am_may_have_work).
  std::atomic<uint32_t> deferred{0};
  uint32_t pscw_completes = 0;  // completes toward the open exposure epoch
  // Fence barrier signals and fence marks that arrived, by (epoch, round). Keyed by the whole
  // epoch: ranks run up to a barrier ahead (a fence with MPI_MODE_NOPRECEDE has none), so
  // signals of two barriers can be here at once.
  struct FenceSignal {
    uint32_t count = 0;
    uint32_t any = 0, all = 0xffff;
  };
  // A few at a time, so a short list searched in place: a hash map allocated a node for every
  // fence. A found entry is valid until the list changes (an arrival may add one).
  class FenceSignals {
   public:
    FenceSignal& operator[](uint64_t key) {
      if (FenceSignal* s = find(key)) return *s;
      return list_.emplace_back(Entry{key, {}}).signal;
    }
    FenceSignal* find(uint64_t key) {
      for (Entry& e : list_)
        if (e.key == key) return &e.signal;
      return nullptr;
    }
    void erase(uint64_t key) {
      for (Entry& e : list_)
        if (e.key == key) {
          e = list_.back();
          list_.pop_back();
          return;
        }
    }

   private:
    struct Entry {
      uint64_t key;
      FenceSignal signal;
    };
    std::vector<Entry> list_;
  };
  FenceSignals fence_signals;
  static uint64_t fence_key(uint32_t epoch, uint32_t round) {
    return static_cast<uint64_t>(epoch) << 8 | round;
  }
  // Where the fence marks of an epoch are counted (barrier rounds take 0..31).
  static constexpr uint32_t kFenceMarkRound = 64;
  uint32_t mark_epoch = 0;              // origin, in a fence: the epoch its fence marks end
  uint8_t mark_bits = 0;                // and the fence_collective_bits they carry
  std::vector<uint8_t> scratch_marked;  // origin, in a fence: the ranks its requests marked
};

}  // namespace osprey::rma
