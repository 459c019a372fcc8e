#include "rma/acc_stage.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>

#include <unistd.h>

#include "datatype/apply.h"
#include "progress/backoff.h"
#include "rma/acc_gate.h"
#include "rma/transfer.h"
#include "rma/window.h"
#include "transport/shm/cma.h"
#include "util/config.h"
#include "util/copy.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

// Entries start on their own cache line: origins write neighbouring entries at once.
constexpr std::size_t kEntryAlign = 64;
// A cross-memory attach call at least this slow (ns) makes staging pay up to kStageOpCap.
constexpr double kDearCall = 800;
// The target reads a referenced origin buffer this much at a time into a buffer that stays in
// the cache while it is combined.
constexpr std::size_t kPullChunk = 256u << 10;

enum State : uint8_t {
  kStaged = 1,   // for the target to apply
  kSettled = 2,  // its origin applied it (settle)
  kEnd = 3,      // a reservation that did not fit: nothing from here on
  kApplied = 4,  // a fetch entry the target applied: its old values are there
};

enum Kind : uint8_t {
  kCombine = 0,  // an accumulate, or a put (MPI_REPLACE on bytes)
  kFetch = 1,    // returns the old values: a get (MPI_NO_OP), get_accumulate, fetch_and_op
  kCas = 2,      // compare_and_swap: its data is the new value, then the compare value
};

// Bytes after an entry's header: its data (none for a reference entry, two values for a
// compare_and_swap), then the old values of an entry that returns them.
std::size_t payload_bytes(uint8_t kind, dt::Op op, uint32_t bytes, bool ref) {
  const std::size_t n = bytes;
  if (kind == kCombine) return ref ? 0 : n;
  if (kind == kCas) return 3 * n;
  return op == dt::Op::kNoOp ? n : 2 * n;
}

}  // namespace

struct AccStage::Entry {
  uint64_t addr;  // the target's own address of the first element
  // A reference entry: the data's address in the origin (0: the data follows). A fetch entry:
  // where the origin wants the old values, in its own memory (the target never reads it).
  uint64_t src;
  uint32_t bytes;
  uint32_t elem_size;
  int32_t pid;  // a reference entry: the origin process
  dt::Repr repr;
  dt::Op op;
  uint8_t state;
  uint8_t kind;
  // The data follows at kDataOffset, 16-byte aligned for any element type; a fetch entry's
  // old values follow its data (right there if it has none: MPI_NO_OP).
  char* data() { return reinterpret_cast<char*>(this) + kDataOffset; }
  char* old() { return data() + data_bytes(); }
  std::size_t payload() const { return payload_bytes(kind, op, bytes, src != 0); }
  // Whether the origin waits for the old values (collect).
  bool fetches() const { return kind != kCombine; }

 private:
  std::size_t data_bytes() const {
    return kind == kCas ? 2 * std::size_t{bytes} : op == dt::Op::kNoOp ? 0 : bytes;
  }

 public:
  static constexpr std::size_t kDataOffset = 32;
};
static_assert(sizeof(AccStage::Entry) <= AccStage::Entry::kDataOffset);

namespace {

std::size_t entry_size(std::size_t bytes) {
  return (AccStage::Entry::kDataOffset + bytes + kEntryAlign - 1) / kEntryAlign * kEntryAlign;
}

// op_max(), once per process: OSPREY_STAGE_OP_MAX, else from the fastest of a few reads of 8
// bytes of this process's own memory by cross-memory attach. Two machines measured: where a
// call takes 0.3-0.4 us (a 2-core Xeon) a staged 2-4 KiB accumulate was 1.14-1.22x the direct
// way; where it takes 1.4-1.6 us (a microVM) a staged 8 KiB put or get under fence took 0.8 us
// against 2.3.
std::size_t measured_op_max() {
  static const std::size_t max = [] {
    if (config().stage_op_max) return std::min<std::size_t>(config().stage_op_max, 1u << 20);
    uint64_t from = 1, to = 0;
    double best = 1e9;
    for (int i = 0; i < 16; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      if (!shm::cma::read(getpid(), &from, &to, sizeof from).ok()) return AccStage::kStageOpMin;
      best = std::min(
          best,
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    }
    const std::size_t m = best < kDearCall ? AccStage::kStageOpMin : AccStage::kStageOpCap;
    OSPREY_LOG(1, "staging: operations up to %zu bytes (a cross-memory attach call: %.0f ns)", m,
               best);
    return m;
  }();
  return max;
}

}  // namespace

void AccStage::init(const shm::SegmentView& view, uint32_t me, uint32_t nlocal) {
  op_max_ = measured_op_max();
  view_ = &view;
  me_ = me;
  pid_ = getpid();
  area_ = view.layout().stage_bytes;
  mine_.assign(area_ ? nlocal : 0, {});
  transfers_.assign(area_ ? nlocal : 0, 0);
}

bool AccStage::stage(const TargetView& t, const RmaOp& op, std::size_t bytes, bool by_reference) {
  const bool ref = bytes > op_max_;
  if (ref && (!by_reference || bytes < kReferenceMin || bytes > UINT32_MAX)) return false;
  return place(t, op.where + op.ttype->true_lb, static_cast<uint32_t>(bytes), op.ttype->repr,
               op.ttype->elem_size, op.op, kCombine,
               static_cast<const char*>(op.origin) + op.otype->true_lb, nullptr, ref, area_);
}

// Puts and gets have a cheaper way than a system call each: the put and get queue issues every
// one toward a target in one call (cma_queue.h). A staged entry costs its origin ~60 ns more
// than a queued one (it writes a cache line the target last held), so a few stage, the rest of
// the epoch's queue.
bool AccStage::transfer_budget(const TargetView& t) {
  uint8_t& n = transfers_[static_cast<uint32_t>(t.local)];
  if (n >= kTransfersStaged) return false;
  ++n;
  return true;
}

bool AccStage::stage_put(const TargetView& t, const RmaOp& op, std::size_t bytes) {
  if (bytes > op_max_ || !transfer_budget(t)) return false;
  return place(t, op.where + op.ttype->true_lb, static_cast<uint32_t>(bytes), dt::Repr::kU8, 1,
               dt::Op::kReplace, kCombine, static_cast<const char*>(op.origin) + op.otype->true_lb,
               nullptr, false, area_ / 2);
}

bool AccStage::stage_fetch(const TargetView& t, const RmaOp& op, std::size_t bytes) {
  const bool get = !op.rtype;  // a get: its buffer is the origin's
  const dt::Op o = get ? dt::Op::kNoOp : op.op;
  if (bytes > op_max_ || payload_bytes(kFetch, o, static_cast<uint32_t>(bytes), false) > op_max_ ||
      (get && !transfer_budget(t)))
    return false;
  char* old = get ? static_cast<char*>(const_cast<void*>(op.origin)) + op.otype->true_lb
                  : static_cast<char*>(op.result) + op.rtype->true_lb;
  const char* data =
      o == dt::Op::kNoOp ? nullptr : static_cast<const char*>(op.origin) + op.otype->true_lb;
  if (!place(t, op.where + op.ttype->true_lb, static_cast<uint32_t>(bytes),
             get ? dt::Repr::kU8 : op.ttype->repr, get ? 1 : op.ttype->elem_size, o, kFetch, data,
             old, false, get ? area_ / 2 : area_))
    return false;
  fetches_ = true;
  return true;
}

bool AccStage::stage_cas(const TargetView& t, const RmaOp& op) {
  const dt::TypeInfo& ti = *op.ttype;
  Entry* e = place(t, op.where + ti.true_lb, ti.elem_size, ti.repr, ti.elem_size, dt::Op::kReplace,
                   kCas, static_cast<const char*>(op.origin) + ti.true_lb,
                   static_cast<char*>(op.result) + ti.true_lb, false, area_);
  if (!e) return false;
  std::memcpy(e->data() + ti.elem_size, static_cast<const char*>(op.compare) + ti.true_lb,
              ti.elem_size);
  fetches_ = true;
  return true;
}

AccStage::Entry* AccStage::place(const TargetView& t, uint64_t where, uint32_t bytes, dt::Repr repr,
                                 uint32_t elem_size, dt::Op o, uint8_t kind, const char* data,
                                 char* old, bool ref, std::size_t fill_limit) {
  const std::size_t need = entry_size(payload_bytes(kind, o, bytes, ref));
  const uint32_t target = static_cast<uint32_t>(t.local);
  shm::StageHeader& h = view_->stage(target);
  // An entry that would not fit is not reserved, so that it leaves the room to smaller ones
  // (and a full area no more read-modify-writes on its line). Puts and gets may fill half of
  // it: the rest stays for accumulates, which have no cheaper way than the direct one.
  if (h.used.load(std::memory_order_relaxed) + need > fill_limit) return nullptr;
  const uint64_t off = h.used.fetch_add(need, std::memory_order_relaxed);
  staged_ = true;
  char* at = view_->stage_data(target) + off;
  if (off + need > area_) {
    // Every later reservation starts further on and fails too: the target stops reading here.
    if (off + Entry::kDataOffset <= area_) reinterpret_cast<Entry*>(at)->state = kEnd;
    return nullptr;
  }
  Entry* e = new (at) Entry;
  e->addr = remote_address(t, where);
  e->src = kind != kCombine ? reinterpret_cast<uint64_t>(old)
           : ref            ? reinterpret_cast<uint64_t>(data)
                            : 0;
  e->bytes = bytes;
  e->elem_size = elem_size;
  e->pid = pid_;
  e->repr = repr;
  e->op = o;
  e->kind = kind;
  if (!ref && data) cpu::copy(e->data(), data, bytes);
  e->state = kStaged;  // the epoch's synchronization publishes it
  mine_[target].push_back(static_cast<uint32_t>(off));
  ++pending_;
  return e;
}

Status AccStage::settle(const TargetView& t) {
  std::vector<uint32_t>& offs = mine_[static_cast<uint32_t>(t.local)];
  if (offs.empty()) return kOk;
  char* area = view_->stage_data(static_cast<uint32_t>(t.local));
  Status s = kOk;
  {
    BulkOpGuard bulk(*view_, static_cast<uint32_t>(t.local));
    for (uint32_t off : offs) {
      Entry* e = reinterpret_cast<Entry*>(area + off);
      const bool fetch = e->fetches();
      const char* data = e->src && !fetch ? reinterpret_cast<const char*>(e->src) : e->data();
      char* old = fetch ? reinterpret_cast<char*>(e->src) : nullptr;
      if (s.ok() && e->kind == kCas)
        s = cma_cas(t.pid, reinterpret_cast<char*>(e->addr), e->repr, e->elem_size, data,
                    data + e->bytes, old);
      else if (s.ok())
        s = cma_combine(t.pid, reinterpret_cast<char*>(e->addr), e->repr, e->elem_size, e->op, data,
                        old, e->bytes);
      e->state = kSettled;  // failed or not: reported here, never applied twice
    }
  }
  pending_ -= static_cast<uint32_t>(offs.size());
  offs.clear();
  return s;
}

void AccStage::collect() {
  progress::Backoff wait(progress::Backoff::Waiting::kBusyUnlessThreads);
  for (uint32_t target = 0; target < mine_.size(); ++target) {
    char* area = view_->stage_data(target);
    for (uint32_t off : mine_[target]) {
      Entry* e = reinterpret_cast<Entry*>(area + off);
      if (!e->fetches()) continue;
      // The target applies its area in this fence too, and so reaches this entry.
      while (std::atomic_ref<uint8_t>(e->state).load(std::memory_order_acquire) != kApplied)
        wait.pause();
      cpu::copy(reinterpret_cast<void*>(e->src), e->old(), e->bytes);
    }
  }
}

void AccStage::epoch_ended() {
  std::fill(transfers_.begin(), transfers_.end(), 0);  // counted even where nothing fit
  if (!staged_) return;
  for (auto& offs : mine_)
    offs.clear();
  pending_ = 0;
  staged_ = false;
  fetches_ = false;
}

Status AccStage::apply_mine() {
  if (!area_) return kOk;
  shm::StageHeader& h = view_->stage(me_);
  const uint64_t used = std::min<uint64_t>(h.used.load(std::memory_order_acquire), area_);
  if (used == 0) return kOk;
  char* area = view_->stage_data(me_);
  Status s = kOk;
  {
    // A passive-target epoch of another origin may update this memory meanwhile.
    BulkOpGuard bulk(*view_, me_);
    for (uint64_t off = 0; off + Entry::kDataOffset <= used;) {
      Entry* e = reinterpret_cast<Entry*>(area + off);
      if (e->state == kEnd) break;
      if (e->state == kStaged && e->fetches()) {
        if (e->kind == kCas)
          dt::cas_plain(e->repr, e->elem_size, reinterpret_cast<void*>(e->addr), e->data(),
                        e->data() + e->bytes, e->old());
        else
          dt::apply_plain_array(e->repr, e->elem_size, e->op, reinterpret_cast<void*>(e->addr),
                                e->data(), e->bytes / e->elem_size, e->old());
        std::atomic_ref<uint8_t>(e->state).store(kApplied, std::memory_order_release);
      } else if (e->state == kStaged && !e->src) {
        dt::apply_plain_array(e->repr, e->elem_size, e->op, reinterpret_cast<void*>(e->addr),
                              e->data(), e->bytes / e->elem_size);
      } else if (e->state == kStaged) {
        const Status a = pull(*e);
        if (s.ok()) s = a;
      }
      off += entry_size(e->payload());
    }
  }
  h.used.store(0, std::memory_order_release);
  return s;
}

// A reference entry: the origin's buffer read by cross-memory attach a chunk at a time and
// combined into this process's memory (one copy, where the origin's way takes two).
Status AccStage::pull(Entry& e) {
  if (!pull_buf_) pull_buf_.reset(new char[kPullChunk]);
  const std::size_t chunk = kPullChunk - kPullChunk % e.elem_size;
  char* target = reinterpret_cast<char*>(e.addr);
  for (std::size_t at = 0; at < e.bytes; at += chunk) {
    const std::size_t len = std::min<std::size_t>(chunk, e.bytes - at);
    OSPREY_TRY(
        shm::cma::read(e.pid, reinterpret_cast<const char*>(e.src) + at, pull_buf_.get(), len));
    dt::apply_plain_array(e.repr, e.elem_size, e.op, target + at, pull_buf_.get(),
                          len / e.elem_size);
  }
  return kOk;
}

}  // namespace osprey::rma
