// Small operations toward a node peer's private memory, applied by the target itself while it
// is inside MPI. A window over a small heap block, a static or a stack array stays private to
// its process (shm/user_memory.h), and node peers reach it by cross-memory attach: a
// fetch_and_op or compare_and_swap is a read and a write-back system call under its lock
// stripe, 0.4-1 us each here, so a lock that a program builds from RMA atomics over such a
// window handed over in 6.7 us where MPICH, whose target serves them from shared memory while
// it polls, took 2.6. So an origin leaves an accumulate-style operation, a compare_and_swap or
// the one small put or get a synchronization issues in its slot at the target (in the node
// segment) and rings the target's bell; the target applies it with the atomicity its own
// operations have (accumulate.cc) and leaves the answer in the slot. The target looks at every
// operation that leaves the inlined fast path, every flush, unlock and MPI_Win_sync, and in
// every wait osprey runs (its MPI_Barrier on one node; lock, fence and PSCW waits; interposed
// host calls), under Open MPI also in the host's own progress loop. Under MPICH a target
// blocked in a host call that osprey leaves alone (on one node: collectives other than
// MPI_Barrier, point-to-point) does not look.
//
// A target may not look for a while (computing, or blocked in a host call osprey does not
// wait in, or in system calls of its own): past kPatienceNs the origin takes its slot back, if
// the target has not taken it, and applies the operation itself by cross-memory attach. The
// patience covers a target's own read and write-back by cross-memory attach (1.4-3 us here):
// with 2 us, two processes that accumulated on each other's memory took most operations back,
// each then making the other wait in its system calls (a test's 2 ranks: 428 of 676 served;
// with 6 us: 1,987 of 1,991). Exactly one of them applies it: the
// slot's state moves from posted to taken (target) or to free (origin) by compare-and-swap.
// A target that let an operation wait is offered nothing for a while (twice the patience, and
// twice that after each further wait, up to 2^kMaxPenalty times it: 1.5 ms), so one that
// rarely calls MPI costs its origins at most about 0.4 % of their time. Each operation it
// serves halves the next pause. While it waits, the origin serves its own slots: two processes
// asking each other wait for each other only as long as an operation takes.
//
// Not on oversubscribed nodes: there the target is often off its CPU when asked, and the wait
// before taking an operation back cost a lock built this way at 4 ranks on 2 CPUs 30-50 % (12-16
// against 16.5-20 us per hand-over), where at 3 ranks it changed nothing.
// Only where one thread at a time is inside MPI (on both sides: each slot belongs to one origin
// process, and the list of windows a poll visits is not guarded). Dynamic windows too: the
// origin checked the range against the target's attach table when the call was made, and the
// target checks it again before it applies (a region detached meanwhile, the program's error,
// is refused with MPI_ERR_RMA_RANGE, where the system call would have failed on it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/basic.h"
#include "datatype/ops.h"
#include "transport/shm/window_segment.h"
#include "util/status.h"

namespace osprey::rma {

// One operation a target is asked to apply.
struct ServedOp {
  enum Kind : uint8_t { kAcc, kCas, kPut, kGet };
  Kind kind = kAcc;
  dt::Op op = dt::Op::kReplace;  // kAcc
  dt::Repr repr{};
  uint32_t elem_size = 1;
  uint32_t bytes = 0;             // data bytes at the target
  uint64_t address = 0;           // of the first of them, in the target's address space
  const void* data = nullptr;     // kAcc's operand (none for MPI_NO_OP), kCas's, kPut's data
  const void* compare = nullptr;  // kCas
  void* result = nullptr;         // old values (kAcc, kCas; may be absent) or kGet's data
};

class ServedOps {
 public:
  static constexpr std::size_t kDataMax = sizeof(shm::ServeSlot::data);
  static constexpr std::size_t kCompareMax = sizeof(shm::ServeSlot::compare);
  // How long an origin waits for its target to take an operation (above).
  static constexpr uint64_t kPatienceNs = 6000;
  static constexpr uint32_t kMaxPenalty = 8;

  // Target side: applies one taken slot to this process's memory (the window's job).
  using Apply = void (*)(void* ctx, shm::ServeSlot& slot);

  // `view`'s slots (layout().serve == 0: none); `me`: this process's node-local index.
  void init(const shm::SegmentView& view, uint32_t me, uint32_t nlocal, Apply apply, void* ctx);
  // The window goes: its slots are no longer looked at (MPI_Win_free, after its barrier).
  // With OSPREY_STATS=1, tells how many operations went which way.
  void stop();

  // Whether an operation toward node rank `local` may be left for it now.
  bool offer(uint32_t local);
  // Leaves `op` at `local` and waits for the answer: true if the target took it, *answer then
  // being its outcome (results copied out if it applied it; a dynamic window's target refuses
  // a range it no longer has attached); false if it did not take it in time, and the caller
  // applies the operation itself.
  bool ask(uint32_t local, const ServedOp& op, Status* answer);

  // Target side: applies what node peers left in this rank's slots; true if there was any.
  bool serve();

 private:
  struct Patience {
    uint64_t until_ns = 0;  // no offer before then (0: offer)
    uint32_t penalty = 0;   // log2 of the next pause, in patiences
  };
  const shm::SegmentView* view_ = nullptr;
  uint32_t me_ = 0, nlocal_ = 0;
  Apply apply_ = nullptr;
  void* ctx_ = nullptr;
  std::vector<Patience> patience_;
  // Operations this process left at targets, took back, and applied for its origins.
  uint64_t asked_ = 0, taken_back_ = 0, applied_ = 0;
};

// Serves the slots of every window of this process that has any (progress::poll runs it, and
// so do the calls a program spins on).
bool serve_all_served();
// Whether any window of this process has slots.
bool any_served();
// The check for calls on hot paths: one load when this process has no slots.
inline void serve_if_any() {
  if (any_served()) serve_all_served();
}

}  // namespace osprey::rma
