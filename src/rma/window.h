// An osprey window: the memory it exposes, the node segment it shares with node peers, the
// epoch state machine, and every RMA call on it. Method bodies live in one file per concern
// (creation, fence, passive target, PSCW, communication, attach, info).
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "datatype/ops.h"
#include "datatype/type_info.h"
#include "progress/engine.h"
#include "rma/acc_stage.h"
#include "rma/am_state.h"
#include "rma/cma_queue.h"
#include "rma/comm_info.h"
#include "rma/fence.h"
#include "rma/hints.h"
#include "rma/passive.h"
#include "rma/pscw.h"
#include "rma/remote_info.h"
#include "rma/served_ops.h"
#include "rma/stripes.h"
#include "rma/target_path.h"
#include "transport/shm/attach_table.h"
#include "transport/shm/node_barrier.h"
#include "transport/shm/peer_regions.h"
#include "transport/shm/segment.h"
#include "transport/shm/window_segment.h"
#include "util/config.h"
#include "util/status.h"

namespace osprey::am {
class Endpoint;
}
namespace osprey::progress {
class Backoff;
}

namespace osprey::rma {

enum class Flavor : int {
  kCreate = MPI_WIN_FLAVOR_CREATE,
  kAllocate = MPI_WIN_FLAVOR_ALLOCATE,
  kDynamic = MPI_WIN_FLAVOR_DYNAMIC,
  kShared = MPI_WIN_FLAVOR_SHARED,
};

// One target rank as operations see it, with the path that reaches it (rma/target_path.h).
struct TargetView {
  int rank = 0;
  int local = -1;  // node-local index, -1 if on another node
  TargetPath* path = nullptr;
  bool cpu_atomics = false;  // false: accumulates hold the window's lock stripes
  bool dynamic = false;      // displacements are absolute addresses
  // A dynamic window's access across regions, one of them shared memory that others update with
  // CPU atomics: a multi-element accumulate there holds off single-element ones (acc_gate.h),
  // and is never left for the target (no stripes would keep those atomics out).
  bool spans_shared = false;
  char* base = nullptr;      // memory mapped here: address of displacement 0
  uint64_t remote_base = 0;  // a node peer's private memory: that address in its process
  pid_t pid = 0;
  uint64_t size = 0;
  int64_t disp_unit = 1;
};

// The access epoch this process has open on the window (exposure epochs are tracked apart).
enum class Access : uint8_t { kNone, kFence, kLock, kLockAll, kPscw };

class Window {
 public:
  struct Args {
    Flavor flavor;
    MPI_Aint size;
    MPI_Aint disp_unit;
    void* base;  // kCreate only
    MPI_Info info;
    MPI_Comm comm;
    MPI_Win anchor;  // the host window handed to the user
  };

  // Collective over a.comm. On error nothing is left behind.
  static Status create(const Args& a, Window** out);
  // Collective; fails with MPI_ERR_RMA_SYNC (and frees nothing) inside an epoch.
  Status free();
  ~Window();

  // --- identity and attributes ---
  MPI_Win anchor() const { return anchor_; }
  Flavor flavor() const { return flavor_; }
  void* base() const { return base_; }
  MPI_Aint size() const { return size_; }
  MPI_Aint disp_unit() const { return disp_unit_; }
  // Pointers for MPI_Win_get_attr (the standard returns pointers to these values).
  MPI_Aint* size_attr() { return &size_; }
  int* disp_unit_attr() { return &disp_unit_int_; }
  int* flavor_attr() { return &flavor_int_; }
  int* model_attr() { return &model_; }

  Status shared_query(int rank, MPI_Aint* size, MPI_Aint* disp_unit, void** base) const;
  Status get_group(MPI_Group* group) const;
  Status get_info(MPI_Info* info) const;
  Status set_info(MPI_Info info);
  Status attach(void* base, MPI_Aint size);
  Status detach(const void* base);

  // --- communication ---
  // The bindings try each call's inline fast path first (the *_direct forms, window_fast.h:
  // false if not their case) and fall back to the general forms, which also report every error.
  // put and get's case of node memory reached by a copy:
  inline bool put_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                         MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype);
  inline bool get_direct(void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                         MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype);
  // Their case of one derived type on both sides with equal counts (a strided copy between
  // equal layouts), out of line so that the inlined forms keep their registers.
  __attribute__((noinline)) bool same_type_direct(char* origin, MPI_Count count, MPI_Datatype type,
                                                  int rank, MPI_Aint disp, bool put);
  // `req` (request-based calls): a started generalized request the operation completes; the
  // engine sets *req to MPI_REQUEST_NULL when it takes it (else it completed at once).
  Status put_general(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                     MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                     MPI_Request* req = nullptr);
  Status get_general(void* origin, MPI_Count ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                     MPI_Count tcount, MPI_Datatype ttype, MPI_Request* req = nullptr);
  Status accumulate_general(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                            MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                            MPI_Request* req = nullptr);
  Status get_accumulate_general(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                void* result, MPI_Count rcount, MPI_Datatype rtype, int rank,
                                MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                                MPI_Request* req = nullptr);
  // The other calls' fast paths: true if they did the operation.
  inline bool accumulate_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                                MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op);
  inline bool get_accumulate_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                    void* result, MPI_Count rcount, MPI_Datatype rtype, int rank,
                                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op);
  inline bool fetch_and_op_direct(const void* origin, void* result, MPI_Datatype type, int rank,
                                  MPI_Aint disp, MPI_Op op);
  inline bool compare_and_swap_direct(const void* origin, const void* compare, void* result,
                                      MPI_Datatype type, int rank, MPI_Aint disp);
  Status fetch_and_op_general(const void* origin, void* result, MPI_Datatype type, int rank,
                              MPI_Aint disp, MPI_Op op);
  Status compare_and_swap_general(const void* origin, const void* compare, void* result,
                                  MPI_Datatype type, int rank, MPI_Aint disp);
  // Request-based forms are only valid in passive-target epochs (MPI-3.1 11.3.5).
  Status check_request_epoch() const;

  // --- synchronization: the epoch state machines (fence.h, passive.h, pscw.h) ---
  Status fence(int assert) { return fence_.fence(assert); }
  Status lock(int type, int rank, int assert) { return passive_.lock(type, rank, assert); }
  Status unlock(int rank) { return passive_.unlock(rank); }
  bool lock_direct(int type, int rank, int assert) {
    return passive_.lock_direct(type, rank, assert);
  }
  bool unlock_direct(int rank) { return passive_.unlock_direct(rank); }
  Status lock_all(int assert) { return passive_.lock_all(assert); }
  Status unlock_all() { return passive_.unlock_all(); }
  // flush's case that completes at once (lock_all, a target in node memory): false if not it.
  inline bool flush_direct(int rank);
  Status flush_general(int rank) { return passive_.flush(rank, false); }
  Status flush_all() { return passive_.flush_all(false); }
  Status flush_local(int rank) { return passive_.flush(rank, true); }
  Status flush_local_all() { return passive_.flush_all(true); }
  Status sync();
  Status post(MPI_Group group, int assert) { return pscw_.post(group, assert); }
  Status start(MPI_Group group, int assert) { return pscw_.start(group, assert); }
  Status complete() { return pscw_.complete(); }
  Status wait() { return pscw_.wait(); }
  Status test(bool* done) { return pscw_.test(done); }
  // A process that spins on node-local memory (flush or sync in a loop) must still serve the
  // message-path requests other processes send it, whatever window they are for.
  inline void serve_requests();

  // Inside MPI_Win_free: synchronized and its memory released, attributes still answered.
  bool freed() const { return freed_; }
  // For tests and diagnostics.
  Access access() const { return access_; }
  // The kinds of path this rank's targets take ("shm", "shm+cma", "shm+am", "shm+cma+am" or
  // "am"), as MPI_Win_get_info reports them (key osprey_path).
  const char* path_name() const { return path_name_; }

  // --- message path, called by the communicator's endpoint (rma/am_*.cc) ---
  bool am_on_request(am::Endpoint& ep, int src, const char* msg, std::size_t n);
  bool am_advance(am::Endpoint& ep);
  // False when am_advance has nothing to do; without the lock, so that a poll visits only the
  // windows with work among the many a communicator may have (an answer just stale is caught
  // by the next poll).
  bool am_may_have_work() const { return am_work() != 0; }
  // Requests waiting here and operations in flight from here (counted in CommInfo::am_work).
  std::size_t am_work() const {
    return am_ ? am_->deferred.load(std::memory_order_relaxed) + am_->table.live_ops() : 0;
  }

 private:
  Window() = default;
  // Fast path: the address of `bytes` at `disp` of a node-local segment target whose epoch
  // allows access, or nullptr if the general path must decide.
  // Always inlined: a call here was a fifth of a fast-path put's cost.
  inline __attribute__((always_inline)) char* fast_address(int rank, MPI_Aint disp, int64_t bytes,
                                                           MPI_Aint true_lb);
  // The same for `count` elements of a derived type at `disp`: where element 0's extent starts
  // (data at the type's own offsets from there), or nullptr.
  char* fast_typed_address(int rank, MPI_Aint disp, MPI_Count count, const dt::TypeInfo& t);
  inline char* fast_atomic_address(int rank, MPI_Aint disp, int64_t bytes, MPI_Aint true_lb);
  // True when nothing else may update rank's window memory meanwhile: this process holds an
  // exclusive lock on it (so no other origin has an epoch there) and issues from one thread.
  inline bool sole_updater(int rank);
  // lock_all's lazy shared lock on node-local `local`, for the fast path's first operation
  // there: out of line and cold, so that the hot path keeps its registers (inlined, the call
  // cost a 1 KiB accumulate + flush 25 %).
  __attribute__((noinline, cold)) bool fast_lock_all(int local);
  // The fast path's accumulate on many elements (acc_gate.h), out of line: inlined, its wait
  // loop made the whole inlined accumulate slower whenever the fast path grew.
  __attribute__((noinline)) void bulk_accumulate(uint32_t local, dt::Repr r, uint32_t elem_size,
                                                 dt::Op o, char* te, const char* oe,
                                                 std::size_t n_elems);
  void setup_fast_targets();
  // Everything after the segment that a request arriving for this window may need.
  void finish_setup(const Args& a);
  Status target(int rank, TargetView& t) const;
  // Only t's rank, node-local index and path (a valid rank): what a flush needs.
  void path_view(int rank, TargetView& t) const {
    t.rank = rank;
    t.local = ci_->local_index(rank);
    t.path = t.local < 0 ? remote_path_ : local_paths_[static_cast<std::size_t>(t.local)];
  }
  bool direct_local(int local) const {
    return local >= 0 && direct_locals_[static_cast<std::size_t>(local)];
  }
  // The path to node-local rank `local` (or to every rank of another node: local < 0), as
  // chosen at creation.
  TargetPath* path_to(int local, const shm::RankInfo* ri) const;
  // The fast path's single-element accumulate-style operation on node rank `local`'s memory:
  // one CPU atomic (the type has one), counted in flight. `result` may be null.
  inline __attribute__((always_inline)) void atomic_one(uint32_t local, const dt::TypeInfo& t,
                                                        dt::Op o, char* te, const void* oe,
                                                        void* result);
  // Checks that the epoch allows access to t, taking a lazily acquired lock if needed.
  Status check_access(const TargetView& t);
  // Moves the epoch state out of an empty fence epoch, or refuses.
  Status leave_fence_for(const char* what);

  // The epoch state machines and the paths work on the window's internals.
  friend class FenceEpoch;
  friend class PassiveEpochs;
  friend class PscwEpochs;
  friend class NodePath;
  friend class DirectPath;
  friend class CmaPath;
  friend class MessagePath;
  // Validates displacement and extent of a target access; returns the byte offset from
  // displacement 0 (or the absolute address for dynamic windows).
  // A dynamic window's access to one attached region that is a shared memory file switches t
  // to the direct path over the file mapped here (CPU atomics, like every rank reaching it).
  Status locate(TargetView& t, MPI_Aint disp, MPI_Count count, const dt::TypeInfo& tt,
                uint64_t* where);
  // The shared region a dynamic window's direct access resolved to. The fast path takes puts
  // and gets inside it while the target's attach table is unchanged (its sequence word, `seq`)
  // and this process has nothing staged toward that target (acc_stage.h; what resolve_dynamic
  // settles first).
  struct DynamicTarget {
    uint64_t seq = UINT64_MAX;  // no table's: nothing resolved
    uint64_t lo = 0, hi = 0;
    char* at = nullptr;  // where the region's file starts here
    uint64_t file_base = 0;
  };
  // A dynamic window: whether [lo, hi) is attached at t, and the switch above (*where becomes
  // the offset in the region's file; *hint, if given, the region so resolved).
  Status resolve_dynamic(TargetView& t, uint64_t lo, uint64_t hi, uint64_t* where,
                         DynamicTarget* hint = nullptr);
  // Applies an accumulate-style operation to every basic element of its target region, in
  // memory mapped here (also the message-path target's own memory) or by cross-memory attach.
  Status apply_direct(const TargetView& t, const RmaOp& op);
  Status apply_cma(const TargetView& t, const RmaOp& op);
  Status apply_cma_region(const TargetView& t, const RmaOp& op, bool striped);
  Status apply_cma_array(const TargetView& t, const RmaOp& op, char* remote, std::size_t bytes);
  Status cas_cma(const TargetView& t, const RmaOp& op);
  Status setup_segment(int64_t my_size, uint64_t user_base, bool contiguous);
  // Maps every node peer's window memory that came from MPI_Alloc_mem (false if one failed);
  // and undoes it (also when another node member failed: all or none of the node shares).
  bool map_user_memory();
  void unmap_user_memory();
  // Moves this window's pages back (user_memory::share_in_place) and ends the exposure of its
  // private memory (user_memory::expose); once.
  void release_user_memory();
  // The end of an attached region's sharing (moved back) or exposure.
  void release_attached(const shm::AttachedRegion& r);
  // Whether node-local rank `local`'s window memory is MPI_Alloc_mem memory every node member
  // maps: loads, stores and CPU atomics on every rank, never cross-memory attach.
  bool user_shared(int local) const {
    return user_shared_ && view_.info(static_cast<uint32_t>(local)).share_fd >= 0;
  }
  void release_resources();
  const char* paths_in_use() const;  // from local_paths_, for path_name_
  uint64_t stripe_key(const TargetView& t, const char* elem) const;
  // One element in memory mapped here (t's direct path): a CPU atomic where the element allows,
  // else a plain update under its stripe.
  void apply_mapped(const TargetView& t, dt::Repr r, uint32_t n, dt::Op op, char* te,
                    const char* oe, char* re);
  void cas_mapped(const TargetView& t, dt::Repr r, uint32_t n, char* te, const void* origin,
                  const void* compare, void* result);
  // An operation on many elements of segment memory as plain loops (acc_gate.h).
  void apply_bulk(const TargetView& t, const RmaOp& op);
  // An operation a node peer left in this rank's slot (served_ops.h), applied to this
  // process's memory as the message path's target applies requests (served_apply.cc).
  void apply_served(shm::ServeSlot& s);

  // Message path, origin side (am_origin.cc). Functions taking an AmGuard run with the
  // window's message-path lock (AmState::mu) held and may wait, which releases it meanwhile.
  using AmGuard = progress::EngineLock;
  am::Endpoint& endpoint() const;
  void am_pause(AmGuard& g, progress::Backoff& b);
  std::vector<int> am_target_ranks() const;
  OpElem* am_new_op(AmGuard& g);
  OpElem* am_sync_elem(AmGuard& g, TargetElem* te);  // the target element's own op
  TargetElem* am_target_elem(AmGuard& g, int rank);
  void am_release_elem(TargetElem* te);     // back to the pool if nobody uses it
  uint16_t am_lock_needed(int rank) const;  // the lock request an operation must carry now
  void am_lock_sent(int rank);              // ... and it went out
  void am_send_bare(AmGuard& g, int rank, am::Request& r);
  void gate_on_last_fence(am::Request& r) const;
  void am_lockall_window_protocol(AmGuard& g);
  // The gate (request flags, epoch) of an operation posted toward `rank` now.
  std::pair<uint16_t, uint32_t> am_epoch_gate(int rank);
  // Queues an operation toward an AM target (issued at once if `issue_now`).
  Status am_enqueue(AmGuard& g, const TargetView& t, OpElem* op, bool issue_now);
  bool am_recordable(am::Kind kind, const RmaOp& op, uint64_t bytes) const;
  bool am_record(AmGuard& g, const TargetView& t, am::Kind kind, const RmaOp& op, uint32_t bytes);
  am::Buffer request_buffer() const;
  am::Buffer take_request(TargetElem* te, uint32_t* taken);
  bool records_ride_with(const TargetElem* te, const OpElem* o) const;
  void am_issue_records(AmGuard& g, TargetElem* te);
  void am_promote_record(TargetElem* te);
  static const dt::TypeInfo* record_type(const am::BatchedOp& rec);
  static void hand_record_gets(TargetElem* te, OpElem* carrier);
  am::Request am_header(const TargetElem* te, const OpElem* op, uint16_t flags,
                        std::vector<char>& layout);
  void am_expect_reply(const TargetElem* te, OpElem* op);
  // Sends op's request, built in `msg` behind the batch in front of it (packet.h), on a
  // credit already reserved.
  void am_send(TargetElem* te, OpElem* op, uint16_t extra_flags, am::Buffer&& msg,
               uint32_t batch_reply);
  // The operation that carries the pending ones from `first` on: the request goes for it, the
  // ones before it ride in its batch, whose records go into `msg` (none: it is `first`).
  OpElem* am_batch(TargetElem* te, OpElem* first, am::Buffer& msg, uint32_t* reply);
  std::size_t batch_room() const;
  static std::size_t record_reply_cap();
  void am_issue(AmGuard& g, TargetElem* te, uint16_t sync_flags);
  bool am_test(OpElem* op);
  void am_take_reply(OpElem* op, const am::Reply& rep);
  void am_complete(OpElem* op);
  void am_reap(TargetElem* te);
  void am_reap_all();
  void am_watch_reply(TargetElem* te);
  void am_wait_elem(AmGuard& g, TargetElem* te);  // until the operations sent to te completed
  // A flush of te's one short operation, sent and completed without the general path's
  // machinery; false if te holds anything else (am_express.cc).
  bool am_express_flush(AmGuard& g, TargetElem* te);
  // Where the reply's data goes: `bytes` copied to `to`, or unpacked into op's result.
  struct ExpressReply {
    std::size_t bytes = 0;
    void* to = nullptr;
    const OpElem* op = nullptr;
  };
  bool express_record(TargetElem* te, am::Buffer& msg, ExpressReply* reply);
  bool express_element(TargetElem* te, OpElem* op, am::Buffer& msg, ExpressReply* reply);
  Status am_take_error();
  Status am_flush(int rank, bool local_only);
  Status am_flush_all(bool local_only);
  Status am_unlock(int rank, const LockEntry& e);
  Status am_unlock_all();
  bool am_advance_origin();
  // Queues one operation toward a target on the message path.
  Status am_post(const TargetView& t, am::Kind kind, const RmaOp& op);
  // Message path, target side (am_target.cc).
  bool am_advance_target(am::Endpoint& ep);
  void am_count_deferred(int delta);  // requests queued (+1) or finished (-1) here
  bool am_execute(am::Endpoint& ep, int src, OriginState& os, Deferred& d);
  bool am_gate(const am::Request& r, OriginState& os);
  bool am_await_layout(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                       Deferred& d);
  bool am_await_payload(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                        Deferred& d);
  bool am_await_batch(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                      Deferred& d);
  Status am_place(const TargetView& self, const am::BatchedOp& b, TargetView* view,
                  uint64_t* where);
  // The target datatype a request describes: its origin's layout slot, or a dense type.
  Status am_target_type(const am::Request& r, OriginState& os, dt::TypeInfo** out);
  void am_run(am::Endpoint& ep, int src, OriginState& os, Deferred& d);
  void am_run_batch(OriginState& os, const char* p, uint32_t bytes, uint16_t flags,
                    std::vector<am::Piece>* gets, std::vector<am::Piece>* alone);
  void am_reply(am::Endpoint& ep, int src, OriginState& os, const am::Request& r, int status,
                uint16_t flags, Deferred& d);
  bool am_retire(am::Endpoint& ep, int src, OriginState& os, Deferred& d);
  void am_count_mark(const am::Request& r);  // a fence mark ran here
  bool am_sends_done();                      // no reply is being sent from window memory any more
  TargetView self_view() const;
  // A request's target range, checked; for a dynamic window resolved as in locate.
  Status check_where(TargetView& t, uint64_t* where, MPI_Count count, const dt::TypeInfo& tt);
  // The same for the bytes [lo, hi) from displacement 0 (or absolute, dynamic windows).
  Status check_span(TargetView& t, uint64_t* where, __int128 lo, __int128 hi);
  bool am_run_plain(am::Endpoint& ep, int src, OriginState& os, const am::Request& r,
                    const char* msg);
  Status am_apply(const am::Request& r, const TargetView& self, uint64_t where, char* addr,
                  dt::TypeInfo& tt, const char* payload, const unsigned char* compare, Status st);
  // Message path synchronization (am_sync.cc).
  Status am_barrier(uint32_t flags, uint32_t* any, uint32_t* all);
  Status am_fence(int assert);
  // The fence of up to OSPREY_FENCE_MARK_RANKS ranks (am_sync.cc); the assertion bits of all
  // ranks combined into *any and *all.
  Status am_fence_marks(uint32_t bits, uint32_t* any, uint32_t* all);
  // Whether the fence must wait for te's acknowledgement, not only for its sends (am_sync.cc).
  bool fence_needs_ack(const TargetElem* te) const;
  // The pieces a separate payload, a batch payload or a get's data of `bytes` travel in
  // between this rank and `rank` (am::remote_piece: only toward another node; the same on both
  // sides).
  std::size_t remote_piece_toward(int rank, uint64_t bytes) const {
    return ci_->local_index(rank) < 0 ? am::remote_piece(static_cast<std::size_t>(bytes)) : 0;
  }
  // The first bytes of a get's (or get_accumulate's, fetch_and_op's) data of `bytes` that its
  // reply carries when the rest goes in remote pieces (one message fewer): an eager limit's
  // worth, if no batched get's data rides in the reply. The same on both sides.
  std::size_t reply_head_toward(int rank, uint64_t bytes, uint64_t gets_in_reply) const {
    const std::size_t limit = config().eager_limit;
    return !gets_in_reply && bytes > limit && remote_piece_toward(rank, bytes) ? limit : 0;
  }

  MPI_Win anchor_ = MPI_WIN_NULL;
  Flavor flavor_ = Flavor::kCreate;
  CommInfo* ci_ = nullptr;
  uint64_t id_ = 0;
  int rank_ = 0, nranks_ = 0;
  void* base_ = nullptr;
  MPI_Aint size_ = 0;
  MPI_Aint disp_unit_ = 1;
  int disp_unit_int_ = 1;
  int flavor_int_ = 0;
  int model_ = MPI_WIN_UNIFIED;
  Hints hints_;
  bool force_am_ = false;

  shm::Segment seg_;
  shm::SegmentView view_;
  shm::NodeBarrier barrier_;
  shm::CentralBarrier central_;  // instead of barrier_ on an oversubscribed node
  // The node's barrier for fence and free (progress runs meanwhile; see fence.cc).
  shm::BarrierResult node_barrier(uint16_t bits);

  // Node-local targets whose memory is in the segment (allocate flavors), by node-local index:
  // what the fast path needs, one line per target (node size, never the job size).
  struct FastTarget {
    char* base;
    int64_t size;
    int64_t disp_unit;
  };
  std::vector<FastTarget> fast_;
  // A dynamic window's node-local targets (without MPI_THREAD_MULTIPLE), by node-local index.
  std::vector<DynamicTarget> dynamic_fast_;
  uint32_t dynamic_fast_ops_ = 0;  // counts them, for serving (fast_dynamic_address)
  inline char* fast_dynamic_address(unsigned local, MPI_Aint disp, int64_t bytes, MPI_Aint true_lb);
  int fast_first_ = 0;        // comm rank of node-local index 0, when node ranks are contiguous
  uint32_t node_rank_ = 0;    // this process's node-local index (its row of in-flight counters)
  std::size_t bulk_min_ = 2;  // elements from which accumulates run as plain loops (acc_gate.h)
  int fast_count_ = 0;        // 0: no fast path

  // The path to each node-local rank and to the ranks of other nodes, chosen at creation.
  std::vector<TargetPath*> local_paths_;
  // Per node-local rank: reached by loads and stores (direct_path()), whose unlock needs no
  // view of the target.
  std::vector<uint8_t> direct_locals_;
  // Named once the paths are chosen: attributes may ask after the segment is gone (MPI_Win_free).
  const char* path_name_ = "";
  TargetPath* remote_path_ = nullptr;

  // MPI_Win_create over MPI_Alloc_mem memory: the peers' memory mapped here, by node index.
  struct UserMap {
    char* addr = nullptr;
    std::size_t len = 0;
  };
  std::vector<UserMap> user_maps_;
  bool user_shared_ = false;

  // The message path (targets on other nodes, or every target with OSPREY_TRANSPORT=am).
  bool uses_am_ = false;
  std::unique_ptr<AmState> am_;
  RemoteInfo remote_;

  // Epoch state: which access epoch is open (the window state of the MPICH "New RMA Design"), and
  // the state machine of each kind. Exposure epochs (PSCW posts) are tracked by pscw_.
  std::atomic<Access> access_{Access::kNone};
  FenceEpoch fence_{*this};
  PassiveEpochs passive_{*this};
  PscwEpochs pscw_{*this};
  MPI_Group group_ = MPI_GROUP_NULL;  // the window's group, for translating user groups
  bool freed_ = false;
  bool threads_ = true;  // the host provides MPI_THREAD_MULTIPLE

  Stripes stripes_;
  // Small puts and gets toward node peers on the cross-memory attach path, until the
  // synchronization that completes them.
  CmaQueues cma_queue_;
  // Accumulates toward node peers' private memory under fence and PSCW, left for the target.
  AccStage stage_;
  // Small operations toward node peers' private memory, left for the target while it is in MPI.
  ServedOps served_;
  // Dynamic windows: the node's attach tables (the mappings of peers' tables are a cache).
  mutable shm::AttachTables attach_;
  shm::PeerRegions peer_regions_;  // peers' shared attached regions mapped here

  // Last: fields of creation and free only, kept away from the hot ones above.
  uint64_t moved_base_ = 0;  // user_memory::share_in_place moved this window's pages
  // Or they stayed private and peers reach them by cross-memory attach (user_memory::expose).
  uint64_t exposed_base_ = 0, exposed_len_ = 0;
  bool memory_released_ = false;  // release_user_memory ran (MPI_Win_free, or destruction)
};

}  // namespace osprey::rma

#include "rma/window_fast.h"
