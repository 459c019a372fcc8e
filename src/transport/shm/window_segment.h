// The layout of a window's node segment: a header with the node barrier, one record per
// node-local rank (where its memory is, its lock words, its accumulate lock, its PSCW
// counters), the accumulate lock stripes, where the attach tables of dynamic windows are, the
// accumulate staging areas of windows over private memory, then the window memory of allocate
// flavors.
// One segment per window per node; every field is reached through offsets computed here.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "progress/doorbell.h"
#include "transport/shm/central_barrier.h"
#include "transport/shm/node_barrier.h"
#include "util/cpu.h"

namespace osprey::shm {

constexpr uint64_t kSegmentMagic = 0x6f73707265790001ull;  // "osprey" v1

// Where a rank's window memory is, as the other ranks of the node see it.
enum class MemKind : uint32_t {
  kSegment = 0,  // inside this segment: direct loads, stores and CPU atomics
  kPrivate = 1,  // the owner's private memory: cross-memory attach or messages, lock stripes
  kDynamic = 2,  // dynamic window: regions in the attach table, private memory
};

struct alignas(cpu::kCacheLine) SegmentHeader {
  uint64_t magic;
  uint32_t nranks;
  uint32_t flavor;
};

// Written by its owner at creation; read-only afterwards.
struct alignas(cpu::kCacheLine) RankInfo {
  int32_t pid;
  int32_t comm_rank;
  MemKind kind;
  int32_t share_fd;      // kPrivate in MPI_Alloc_mem memory: its file in the owner, else -1
  uint64_t data_offset;  // kSegment: offset of the rank's memory in the segment
  uint64_t size;         // bytes exposed
  int64_t disp_unit;
  uint64_t user_base;  // kPrivate: address of the memory in the owner's address space
  uint64_t share_off;  // share_fd: where user_base is in that file, and the file's length
  uint64_t share_len;
};

// Passive-target lock of one rank: a phase-fair reader-writer lock (see rma/shm_lock.h).
// The writer tickets taken and the reader arrivals share one word, so that a free lock is
// taken exclusively with one compare-and-swap (one atomic instruction less per lock).
struct alignas(cpu::kCacheLine) LockWords {
  // Low half: writer tickets taken (win). High half (rin): reader arrivals (high bits) +
  // writer-present flags (low bits); a carry out of it is lost, so it wraps on its own.
  std::atomic<uint64_t> arrivals;
  std::atomic<uint32_t> rout;  // reader departures
  std::atomic<uint32_t> wout;  // writer tickets served
  progress::Doorbell bell;     // rung by every release, for waiters of oversubscribed nodes
  uint32_t rin() const {
    return static_cast<uint32_t>(arrivals.load(std::memory_order_acquire) >> 32);
  }
  uint32_t win() const { return static_cast<uint32_t>(arrivals.load(std::memory_order_acquire)); }
};

// Post-start-complete-wait words of one rank (see rma/shm_pscw.h).
struct alignas(cpu::kCacheLine) PscwWords {
  std::atomic<uint32_t> completes;  // origins that completed toward this rank's exposure epoch
  // Rung when an origin completes toward this rank or a target posts to it (its match vector).
  progress::Doorbell bell;
};

// Where the attach table of one rank of a dynamic window is (see shm/attach_table.h): the table
// itself lives in a shared memory file of its owner that moves when it grows.
struct alignas(cpu::kCacheLine) AttachTableHeader {
  std::atomic<uint64_t> seq;         // odd while the owner changes the table
  std::atomic<uint32_t> count;       // regions in the table
  std::atomic<uint32_t> capacity;    // regions the current table file holds (0: none yet)
  std::atomic<uint32_t> generation;  // bumped whenever the table moves to a new file
  std::atomic<int32_t> pid;          // the owner; the file is /proc/<pid>/fd/<fd>
  std::atomic<int32_t> fd;
};

// Held by an accumulate-style operation on more than one basic element for its whole
// duration, so that each such operation applies to its target as a whole (see
// rma/accumulate.cc). One per rank.
// While it is held, single-element atomics on the rank's memory wait (rma/acc_gate.h).
struct alignas(cpu::kCacheLine) AccLock {
  std::atomic<uint32_t> word;
};

struct alignas(cpu::kCacheLine) Stripe {
  std::atomic<uint32_t> word;
};

// The head of one rank's accumulate staging area (rma/acc_stage.h): bytes reserved in it this
// epoch, the area's bytes following.
struct alignas(cpu::kCacheLine) StageHeader {
  std::atomic<uint64_t> used;
};

// Small operations a node peer leaves for this rank to apply to its private memory
// (rma/served_ops.h): `mail` is raised by an origin after it posted into one of the rank's
// slots; `serving` is set by the owner when it will look.
struct alignas(cpu::kCacheLine) ServeBell {
  std::atomic<uint32_t> mail;
  std::atomic<uint32_t> serving;
};

// One origin's slot at one target: the operation, its data and its answer. Its owner changes
// with `state` (rma/served_ops.h): the origin fills a free slot and posts it; the target takes a
// posted one, applies it and marks it done; the origin reads the answer and frees it, or takes
// back a slot still posted and applies the operation itself.
struct alignas(cpu::kCacheLine) ServeSlot {
  std::atomic<uint32_t> state;
  uint8_t kind;
  uint8_t op;
  uint8_t repr;
  uint8_t with_result;
  uint32_t elem_size;
  uint32_t bytes;
  uint64_t address;  // of the first data byte, in the target's address space
  int32_t status;    // 0, or the error class of the target's refusal
  uint32_t pad;
  unsigned char data[32];
  unsigned char compare[16];
  unsigned char pad2[16];
  unsigned char result[32];
};
static_assert(sizeof(ServeSlot) == 2 * cpu::kCacheLine);

// Offsets of every part of a window segment, identical on all ranks of the node.
struct SegmentLayout {
  uint32_t nranks = 0;
  std::size_t match_words = 0;  // 64-bit words of one rank's PSCW match vector
  std::size_t stripes = 0;
  bool dynamic = false;  // attach table headers present
  std::size_t barrier = 0, central = 0, rank_info = 0, locks = 0, acc = 0, inflight = 0, pscw = 0,
              match = 0, stripe = 0, attach = 0;
  std::size_t stage = 0, stage_bytes = 0;  // staging areas: where, and bytes of each (0: none)
  std::size_t serve = 0;                   // served operations' bells, then slots (0: none)
  std::size_t inflight_row = 0;            // bytes of one rank's row of in-flight counters
  std::size_t data = 0;                    // first data byte (page aligned)
  std::size_t total = 0;                   // segment size

  // sizes[i]: bytes of node-local rank i, or nullptr for windows without memory here.
  // contiguous: ranks' memory back to back (allocate_shared default); else each rank's starts
  // page_offset bytes into a page of its own.
  // dynamic: a dynamic window (attach table headers).
  // stage_bytes: each rank's accumulate staging area (0: none).
  // served: a bell per rank and a slot per pair of ranks for served operations.
  static SegmentLayout compute(uint32_t nranks, const uint64_t* sizes, bool contiguous,
                               std::size_t stripes, bool dynamic, uint64_t* data_offsets_out,
                               std::size_t page_offset = 0, std::size_t stage_bytes = 0,
                               bool served = false);
};

// Typed access to a mapped segment.
class SegmentView {
 public:
  SegmentView() = default;
  SegmentView(char* base, const SegmentLayout& l) : base_(base), l_(l) {}

  SegmentHeader& header() const { return *reinterpret_cast<SegmentHeader*>(base_); }
  BarrierSlot* barrier_slots() const { return reinterpret_cast<BarrierSlot*>(base_ + l_.barrier); }
  CentralBarrierWords* central_barrier() const {
    return reinterpret_cast<CentralBarrierWords*>(base_ + l_.central);
  }
  RankInfo& info(uint32_t i) const { return at<RankInfo>(l_.rank_info, i); }
  LockWords& lock(uint32_t i) const { return at<LockWords>(l_.locks, i); }
  AccLock& acc(uint32_t i) const { return at<AccLock>(l_.acc, i); }
  // Single-element atomics that node rank `applier` has in flight on rank `target`'s memory
  // (rma/acc_gate.h); each applier writes only its own row, one cache line or more.
  std::atomic<uint32_t>& inflight(uint32_t applier, uint32_t target) const {
    return reinterpret_cast<std::atomic<uint32_t>*>(base_ + l_.inflight +
                                                    applier * l_.inflight_row)[target];
  }
  PscwWords& pscw(uint32_t i) const { return at<PscwWords>(l_.pscw, i); }
  std::atomic<uint64_t>* match(uint32_t i) const {
    return reinterpret_cast<std::atomic<uint64_t>*>(base_ + l_.match +
                                                    i * l_.match_words * sizeof(uint64_t));
  }
  Stripe& stripe(std::size_t i) const { return at<Stripe>(l_.stripe, i); }
  // The attach table headers of all node-local ranks (dynamic windows only).
  AttachTableHeader* attach_headers() const {
    return reinterpret_cast<AttachTableHeader*>(base_ + l_.attach);
  }
  // Node-local rank i's accumulate staging area (layout().stage_bytes after the header).
  StageHeader& stage(uint32_t i) const {
    return *reinterpret_cast<StageHeader*>(base_ + l_.stage +
                                           i * (sizeof(StageHeader) + l_.stage_bytes));
  }
  char* stage_data(uint32_t i) const {
    return reinterpret_cast<char*>(&stage(i)) + sizeof(StageHeader);
  }
  // Served operations (layout().serve != 0): rank `target`'s bell, and the slot origin
  // `origin` posts into at `target` (a target's slots are next to each other).
  ServeBell& serve_bell(uint32_t target) const { return at<ServeBell>(l_.serve, target); }
  ServeSlot& serve_slot(uint32_t origin, uint32_t target) const {
    return at<ServeSlot>(l_.serve + l_.nranks * sizeof(ServeBell), target * l_.nranks + origin);
  }
  char* data(uint64_t offset) const { return base_ + offset; }
  const SegmentLayout& layout() const { return l_; }
  char* base() const { return base_; }

 private:
  template <class T>
  T& at(std::size_t off, std::size_t i) const {
    return reinterpret_cast<T*>(base_ + off)[i];
  }
  char* base_ = nullptr;
  SegmentLayout l_;
};

}  // namespace osprey::shm
