// Operations toward a node peer's private memory (MPI_Win_create, dynamic windows) under fence
// and PSCW: instead of system calls (read, combine, write back by cross-memory attach; one
// costs 0.3-1.5 us, depending on the machine), the origin copies the operation into the
// target's staging area in the node segment, and the target applies what its area holds when
// the epoch ends: after the fence's barrier (fence.cc runs a second barrier then, so no rank
// reads the memory before), or in MPI_Win_wait / MPI_Win_test once its origins completed.
// Passive target epochs do not stage: the target takes no part.
//
// What stages, in processes where one thread at a time is inside MPI, while the area has room:
// - accumulates without result, dense on both sides. Up to op_max() bytes the data is
//   copied into the entry; from kReferenceMin, under fence only, they stage by reference: the
//   entry names the origin's buffer, which the target reads by cross-memory attach and combines
//   into its memory, one copy where the origin's own read, combine and write back take two. The
//   buffer is stable until then: the origin leaves the fence only after its targets applied
//   their areas (under PSCW, MPI_Win_complete returns before the target applies and hands the
//   buffer back);
// - dense puts up to op_max(), as accumulates with MPI_REPLACE on bytes;
// - under fence only, dense gets, accumulates with a result (get_accumulate, fetch_and_op)
//   and compare_and_swap up to op_max() with their data: the target leaves the old values in
//   the entry and marks it applied, and each origin copies its own out before the fence's second
//   barrier (after which the areas take new entries).
// Everything else toward that target goes the direct way. An accumulate or compare_and_swap
// that does so first applies this origin's staged entries toward it itself (settle), so that
// the target sees this origin's accumulates in the order they were made (the default
// accumulate_ordering); puts and gets do not wait for them (a put or get touching what another
// operation of the epoch touches is erroneous without a flush between). Atomicity is that of
// accumulate_cma.cc: each entry applies under the target rank's whole-operation lock
// (BulkOpGuard), whoever applies it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "datatype/basic.h"
#include "datatype/ops.h"
#include "progress/engine.h"
#include "transport/shm/window_segment.h"
#include "util/status.h"

namespace osprey::rma {

struct RmaOp;
struct TargetView;

// One accumulate of `n` bytes read, combined and written back in process `pid` by cross-memory
// attach, with nothing else updating that memory meanwhile (defined in accumulate_cma.cc).
Status cma_combine(pid_t pid, char* remote, dt::Repr r, uint32_t elem_size, dt::Op op,
                   const char* origin, char* result, std::size_t n);
// One compare_and_swap of an element the same way (the old value goes to `result`).
Status cma_cas(pid_t pid, char* remote, dt::Repr r, uint32_t elem_size, const char* origin,
               const char* compare, char* result);

class AccStage {
 public:
  // Largest operation whose data is copied into its entry (op_max()), by the cost of a system
  // call here: past it the two copies cost more than the system calls saved (acc_stage.cc).
  static constexpr std::size_t kStageOpMin = 1024;
  static constexpr std::size_t kStageOpCap = 8192;
  // Puts and gets staged per target and epoch; the rest wait in the put and get queue.
  static constexpr uint8_t kTransfersStaged = 4;
  // Smallest accumulate staged by reference: below it the second barrier and the target's
  // system call cost what the origin's second system call saves.
  static constexpr std::size_t kReferenceMin = 8192;

  // `view`'s staging areas (none: nothing stages); `me`: this process's node-local index.
  void init(const shm::SegmentView& view, uint32_t me, uint32_t nlocal);
  std::size_t op_max() const { return op_max_; }
  // Not while threads may be inside the engine together: an operation made by one thread while
  // another is in the fence's barrier would belong to either epoch, and one staged while its
  // target empties its area would be lost (the direct way has no such window).
  bool usable() const {
    return area_ > 0 && !progress::concurrent_threads.load(std::memory_order_relaxed);
  }

  // Leaves `op` (`bytes` of data) in target t's area, past op_max() only if `by_reference`
  // may be used; false if it does not stage (the caller then settles t and applies it).
  bool stage(const TargetView& t, const RmaOp& op, std::size_t bytes, bool by_reference);
  // A dense put of `bytes` (up to op_max()), applied like an accumulate with MPI_REPLACE.
  bool stage_put(const TargetView& t, const RmaOp& op, std::size_t bytes);
  // Under fence only: a dense get (op.rtype absent: the old values go to op.origin) or an
  // accumulate with result; the target leaves the old values in the entry, and collect()
  // copies them out before the fence's second barrier.
  bool stage_fetch(const TargetView& t, const RmaOp& op, std::size_t bytes);
  // Under fence only: a compare_and_swap, its old value collected like a fetch's.
  bool stage_cas(const TargetView& t, const RmaOp& op);
  // Whether this process has entries staged that it did not apply itself.
  bool pending() const { return pending_ != 0; }
  // The same toward one target (`local`: its node-local index; mine_ has one list per node
  // rank whenever anything is pending).
  bool pending_toward(uint32_t local) const { return pending_ != 0 && !mine_[local].empty(); }
  // Applies this process's entries still staged toward t itself, before an accumulate that must
  // come after them (the caller first issues what t's put and get queue holds). Out of line:
  // callers ask pending() first.
  Status settle(const TargetView& t);
  // Whether this process reserved space in any area since the last epoch_ended(): its target
  // must then walk and empty the area, even if the entries were settled or did not fit.
  bool staged() const { return staged_; }
  // Whether this process staged entries whose old values it must collect.
  bool fetches() const { return fetches_; }
  // In the fence, between its barriers, where every target applies its area: waits for each
  // fetch entry to be applied and copies its old values to the buffer its operation named.
  void collect();
  // The epoch's synchronization handed every staged entry to its target.
  void epoch_ended();

  // Target side, once the origins' epoch ended: applies the entries in this rank's own area.
  // Fails only if an origin's buffer could not be read.
  Status apply_mine();

  struct Entry;  // one staged operation in an area (acc_stage.cc)

 private:
  Status pull(Entry& e);
  bool transfer_budget(const TargetView& t);
  Entry* place(const TargetView& t, uint64_t where, uint32_t bytes, dt::Repr repr,
               uint32_t elem_size, dt::Op o, uint8_t kind, const char* data, char* old, bool ref,
               std::size_t fill_limit);

  const shm::SegmentView* view_ = nullptr;
  uint32_t me_ = 0;
  pid_t pid_ = 0;
  std::unique_ptr<char[]> pull_buf_;  // reference entries' data on its way in
  std::size_t area_ = 0;              // bytes of each rank's area (0: staging off)
  std::size_t op_max_ = kStageOpMin;
  // One thread at a time stages (usable()), so these need no lock.
  std::vector<std::vector<uint32_t>> mine_;  // per target: offsets of this process's entries
  std::vector<uint8_t> transfers_;           // per target: puts and gets staged this epoch
  uint32_t pending_ = 0;                     // entries in mine_
  bool staged_ = false;                      // see staged()
  bool fetches_ = false;                     // see fetches()
};

}  // namespace osprey::rma
