// The inline fast paths of the most frequent calls: node-local targets whose window memory is
// in the node segment, predefined dense datatypes, an epoch that already allows the access.
// Anything else (and every error) goes to the general forms in put_get.cc and accumulate.cc.
#pragma once

#include <cstring>

#include "datatype/apply.h"
#include "datatype/runs.h"
#include "progress/backoff.h"
#include "progress/engine.h"
#include "rma/acc_gate.h"
#include "rma/comm_info.h"
#include "rma/paths.h"
#include "rma/shm_lock.h"
#include "util/copy.h"
#include "util/cpu.h"

namespace osprey::rma {

// The copy of a fast-path put or get: the common small sizes inline (a call to memcpy cost as
// much as the rest of the put). 4, 8 and 16 bytes first, in a switch of their own: with 1, 2 and
// 32 among its cases it became a jump table, and 4-16 byte rates fell by 3-10%.
inline __attribute__((always_inline)) void fast_copy(char* dst, const char* src, std::size_t n) {
  switch (n) {
    case 8:
      std::memcpy(dst, src, 8);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 16:
      std::memcpy(dst, src, 16);
      return;
    default:
      break;
  }
  // Then the rest of the sizes a call to memcpy made 0.85-0.9 as fast (an inline 64-byte copy
  // is a rep movs here, slower than the call).
  if (n == 1) [[unlikely]] {
    *dst = *src;
  } else if (n == 2) [[unlikely]] {
    std::memcpy(dst, src, 2);
  } else if (n == 32) [[unlikely]] {
    std::memcpy(dst, src, 32);
  } else {
    cpu::copy(dst, src, n);
  }
}

// Whether an element at p can take t's CPU atomic. A mask, not `%`: the width is a power of two
// (1 to 16 bytes), and a 64-bit division cost a tenth of an 8-byte accumulate + flush here.
inline bool aligned_for_atomic(const char* p, const dt::TypeInfo& t) {
  return (reinterpret_cast<uintptr_t>(p) & (t.atomic_width - 1)) == 0;
}

inline char* Window::fast_address(int rank, MPI_Aint disp, int64_t bytes, MPI_Aint true_lb) {
  const unsigned local = static_cast<unsigned>(rank - fast_first_);
  if (local >= static_cast<unsigned>(fast_count_) || disp < 0) return nullptr;
  switch (access_) {
    case Access::kFence:
      fence_.note_op();
      break;
    case Access::kLockAll:
      // The first operation to a target takes lock_all's lazy shared lock here, as the
      // general path would.
      if (!passive_.lockall_nocheck() && !passive_.lockall_holds(static_cast<int>(local)) &&
          !fast_lock_all(static_cast<int>(local))) [[unlikely]]
        return nullptr;
      break;
    case Access::kLock: {
      LockEntry* e = passive_.find(rank);
      if (!e) return nullptr;
      if (!e->nocheck && !e->held.load(std::memory_order_acquire)) {
        if (threads_) return nullptr;  // the general path serializes lazy acquisition
        shm::LockWords& l = view_.lock(local);
        if (e->type == MPI_LOCK_EXCLUSIVE)
          shm_lock::lock_exclusive(l, progress::poll);
        else
          shm_lock::lock_shared(l, progress::poll);
        cpu::mem_sync_beside_rmw();
        e->held.store(true, std::memory_order_relaxed);
      }
      break;
    }
    case Access::kPscw:
      if (!pscw_.fast_ready(local)) return nullptr;
      break;
    default:
      return nullptr;
  }
  const FastTarget& f = fast_[local];
  // Targets the fast path cannot reach by offset (private memory, a dynamic window's) carry a
  // negative size: only they look further, so an allocated window's put pays nothing for it.
  if (f.size < 0) [[unlikely]]
    return dynamic_fast_.empty() ? nullptr : fast_dynamic_address(local, disp, bytes, true_lb);
  int64_t off;
  if (__builtin_mul_overflow(disp, f.disp_unit, &off)) return nullptr;
  // (true_lb is a derived type's data start too, which the program sets: fast_typed_address)
  if (__builtin_add_overflow(off, true_lb, &off)) return nullptr;
  if (off < 0 || off > f.size || bytes > f.size - off) return nullptr;
  return f.base + off;
}

inline char* Window::fast_dynamic_address(unsigned local, MPI_Aint disp, int64_t bytes,
                                          MPI_Aint true_lb) {
  // A dynamic window has slots where node peers leave operations for this process (served_ops.h):
  // the general path serves them at every call (check_access), a run of fast-path operations
  // at every 16th, so that a peer does not give up waiting and take its operation back.
  if ((++dynamic_fast_ops_ & 15) == 0) serve_if_any();
  const DynamicTarget& d = dynamic_fast_[local];
  // disp is an address in the target (non-negative, checked by the caller)
  const __int128 lo = static_cast<__int128>(disp) + true_lb, hi = lo + bytes;
  if (lo < static_cast<__int128>(d.lo) || hi > static_cast<__int128>(d.hi) ||
      stage_.pending_toward(local) || attach_.seq(local) != d.seq)
    return nullptr;
  return d.at + static_cast<uint64_t>(lo - static_cast<__int128>(d.file_base));
}

// Accumulate-style operations on a dynamic window stay on the general path, whose direct
// path keys its lock stripes by the owner's addresses (resolve_dynamic).
inline char* Window::fast_atomic_address(int rank, MPI_Aint disp, int64_t bytes, MPI_Aint true_lb) {
  return dynamic_fast_.empty() ? fast_address(rank, disp, bytes, true_lb) : nullptr;
}

inline char* Window::fast_typed_address(int rank, MPI_Aint disp, MPI_Count count,
                                        const dt::TypeInfo& t) {
  int64_t lo, hi;
  if (count <= 0 || !dt::element_span(count, t, &lo, &hi)) return nullptr;
  char* p = fast_address(rank, disp, hi - lo, lo);
  return p ? p - lo : nullptr;
}

inline bool Window::sole_updater(int rank) {
  if (access_ != Access::kLock || threads_) return false;
  const LockEntry* e = passive_.find(rank);
  return e && e->type == MPI_LOCK_EXCLUSIVE;
}

inline bool Window::put_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                               MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype) {
  const dt::TypeInfo* ot = dt::predefined(otype);
  const dt::TypeInfo* tt = ttype == otype ? ot : dt::predefined(ttype);
  int64_t n, tn;  // a count whose bytes overflow takes the general path, which refuses it
  if (ot && tt && ot->dense && tt->dense && ocount >= 0 &&
      !__builtin_mul_overflow(ocount, ot->size, &n) &&
      !__builtin_mul_overflow(tcount, tt->size, &tn) && n == tn) {
    if (char* dst = fast_address(rank, disp, n, tt->true_lb)) {
      fast_copy(dst, static_cast<const char*>(origin) + ot->true_lb, static_cast<size_t>(n));
      return true;
    }
  }
  if (!ot && ttype == otype && ocount == tcount)
    return same_type_direct(const_cast<char*>(static_cast<const char*>(origin)), ocount, otype,
                            rank, disp, true);
  return false;
}

inline void Window::atomic_one(uint32_t local, const dt::TypeInfo& t, dt::Op o, char* te,
                               const void* oe, void* result) {
  SingleOpGuard single(view_, node_rank_, local);
  if (t.cat != dt::Category::kInteger || !dt::integer_atomic(t.atomic_width, o, te, oe, result))
    dt::apply_atomic(t.repr, t.elem_size, o, te, oe, result);
}

inline bool Window::accumulate_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                      int rank, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
                                      MPI_Op op) {
  const dt::TypeInfo* t = dt::predefined(otype);
  const dt::Op o = dt::to_op(op);
  int64_t n;
  if (t && ttype == otype && ocount == tcount && ocount > 0 && t->atomic_width && t->dense &&
      dt::takes(*t, o) && !__builtin_mul_overflow(ocount, t->size, &n)) {
    char* te = fast_atomic_address(rank, disp, n, t->true_lb);
    if (te && aligned_for_atomic(te, *t)) {
      const char* oe = static_cast<const char*>(origin) + t->true_lb;
      const uint32_t local = static_cast<uint32_t>(rank - fast_first_);
      const std::size_t n_elems = static_cast<std::size_t>(ocount);
      if (n_elems == 1) {  // the commonest case first, as fetch_and_op does it
        atomic_one(local, *t, o, te, oe, nullptr);
        return true;
      }
      if (sole_updater(rank)) {
        dt::apply_plain_array(t->repr, t->elem_size, o, te, oe, n_elems);
        return true;
      }
      if (n_elems >= bulk_min_) {
        bulk_accumulate(local, t->repr, t->elem_size, o, te, oe, n_elems);
        return true;
      }
      // A few elements: applied as a whole (see accumulate.cc), one atomic each.
      WholeOpGuard whole(view_.acc(local), true);
      const bool integer = t->cat == dt::Category::kInteger;
      for (MPI_Count i = 0; i < ocount; ++i, te += t->elem_size, oe += t->elem_size)
        if (!integer || !dt::integer_atomic(t->atomic_width, o, te, oe, nullptr))
          dt::apply_atomic(t->repr, t->elem_size, o, te, oe, nullptr);
      return true;
    }
  }
  return false;
}

inline bool Window::get_accumulate_direct(const void* origin, MPI_Count ocount, MPI_Datatype otype,
                                          void* result, MPI_Count rcount, MPI_Datatype rtype,
                                          int rank, MPI_Aint disp, MPI_Count tcount,
                                          MPI_Datatype ttype, MPI_Op op) {
  const dt::TypeInfo* t = dt::predefined(ttype);
  const dt::Op o = dt::to_op(op);
  const bool no_op = o == dt::Op::kNoOp;
  int64_t n;
  if (t && rtype == ttype && rcount == tcount && tcount > 0 &&
      (no_op || (otype == ttype && ocount == tcount)) && t->atomic_width && t->dense &&
      dt::takes(*t, o) && !__builtin_mul_overflow(tcount, t->size, &n)) {
    char* te = fast_atomic_address(rank, disp, n, t->true_lb);
    if (te && aligned_for_atomic(te, *t)) {
      char* re = static_cast<char*>(result) + t->true_lb;
      const char* oe = no_op ? te : static_cast<const char*>(origin) + t->true_lb;
      const uint32_t local = static_cast<uint32_t>(rank - fast_first_);
      const std::size_t n_elems = static_cast<std::size_t>(tcount);
      if (n_elems >= bulk_min_) {
        BulkOpGuard bulk(view_, local);
        dt::apply_plain_array(t->repr, t->elem_size, o, te, oe, n_elems, re);
        return true;
      }
      WholeOpGuard whole(view_.acc(local), n_elems > 1);
      SingleOpGuard single(view_, node_rank_, local, n_elems == 1);
      const bool integer = t->cat == dt::Category::kInteger;
      for (MPI_Count i = 0; i < tcount; ++i) {
        if (!integer || !dt::integer_atomic(t->atomic_width, o, te, oe, re))
          dt::apply_atomic(t->repr, t->elem_size, o, te, oe, re);
        te += t->elem_size;
        re += t->elem_size;
        oe = no_op ? te : oe + t->elem_size;
      }
      return true;
    }
  }
  return false;
}

inline bool Window::get_direct(void* origin, MPI_Count ocount, MPI_Datatype otype, int rank,
                               MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype) {
  const dt::TypeInfo* ot = dt::predefined(otype);
  const dt::TypeInfo* tt = ttype == otype ? ot : dt::predefined(ttype);
  int64_t n, tn;  // a count whose bytes overflow takes the general path, which refuses it
  if (ot && tt && ot->dense && tt->dense && ocount >= 0 &&
      !__builtin_mul_overflow(ocount, ot->size, &n) &&
      !__builtin_mul_overflow(tcount, tt->size, &tn) && n == tn) {
    if (char* src = fast_address(rank, disp, n, tt->true_lb)) {
      fast_copy(static_cast<char*>(origin) + ot->true_lb, src, static_cast<size_t>(n));
      return true;
    }
  }
  if (!ot && ttype == otype && ocount == tcount)
    return same_type_direct(static_cast<char*>(origin), ocount, otype, rank, disp, false);
  return false;
}

inline bool Window::fetch_and_op_direct(const void* origin, void* result, MPI_Datatype type,
                                        int rank, MPI_Aint disp, MPI_Op op) {
  const dt::TypeInfo* t = dt::predefined(type);
  const dt::Op o = dt::to_op(op);
  if (t && t->atomic_width && dt::takes(*t, o)) {
    char* te = fast_atomic_address(rank, disp, t->size, t->true_lb);
    if (te && aligned_for_atomic(te, *t)) {
      atomic_one(static_cast<uint32_t>(rank - fast_first_), *t, o, te, origin, result);
      return true;
    }
  }
  return false;
}

inline bool Window::compare_and_swap_direct(const void* origin, const void* compare, void* result,
                                            MPI_Datatype type, int rank, MPI_Aint disp) {
  const dt::TypeInfo* t = dt::predefined(type);
  if (t && t->atomic_width && t->atomic_width <= 8 &&
      (t->cat == dt::Category::kInteger || t->cat == dt::Category::kLogical ||
       t->cat == dt::Category::kByte)) {
    char* te = fast_atomic_address(rank, disp, t->size, t->true_lb);
    if (te && aligned_for_atomic(te, *t)) {
      SingleOpGuard single(view_, node_rank_, static_cast<uint32_t>(rank - fast_first_));
      auto cas = [&](auto zero) {
        using W = decltype(zero);
        W expected, desired;
        std::memcpy(&expected, compare, sizeof(W));
        std::memcpy(&desired, origin, sizeof(W));
        __atomic_compare_exchange_n(reinterpret_cast<W*>(te), &expected, desired, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        std::memcpy(result, &expected, sizeof(W));
      };
      switch (t->atomic_width) {
        case 8:
          cas(uint64_t{0});
          break;
        case 4:
          cas(uint32_t{0});
          break;
        case 2:
          cas(uint16_t{0});
          break;
        default:
          cas(uint8_t{0});
          break;
      }
      return true;
    }
  }
  return false;
}

inline bool Window::flush_direct(int rank) {
  const unsigned local = static_cast<unsigned>(rank - fast_first_);
  if (access_ != Access::kLockAll || local >= static_cast<unsigned>(fast_count_)) return false;
  // A target of private or dynamic memory (size < 0) is reached by cross-memory attach, unless
  // the window has message-path targets (no attach, say): its queued puts and gets are for
  // the general path to issue, which reports their errors; with none queued, as below (an
  // empty flush on a dynamic window took the general path, 1.9x this one's time).
  if (fast_[local].size < 0 && (uses_am_ || cma_queue_.waiting(static_cast<int>(local))))
    return false;
  cpu::mem_sync();  // node-local operations completed when issued; make them visible
  serve_requests();
  return true;
}

inline void Window::serve_requests() {
  if (am_endpoints_exist())
    progress::poll();  // serves the slots too
  else
    serve_if_any();
  progress::pace_spinning_caller();
}

inline void PassiveEpochs::open_entry(LockEntry* e, int type, int rank, int local, int assert) {
  e->rank = rank, e->local = local, e->type = type;
  e->nocheck = (assert& MPI_MODE_NOCHECK) != 0;
  e->am_sent = false, e->closing = false;
  e->held.store(false, std::memory_order_relaxed);
  e->claimed.store(false, std::memory_order_relaxed);
  ++open_count_;
  open_storage_[static_cast<size_t>(rank)].store(e, std::memory_order_release);
  w_.access_.store(Access::kLock, std::memory_order_release);
}

inline void PassiveEpochs::close_entry(int rank) {
  open_storage_[static_cast<size_t>(rank)].store(nullptr, std::memory_order_release);
  if (--open_count_ == 0) w_.access_.store(Access::kNone, std::memory_order_release);
}

inline bool PassiveEpochs::lock_direct(int type, int rank, int assert) {
  // (A window in MPI_Win_free has no epoch but may still have lock entries.)
  if (w_.threads_ || w_.freed_ || (type != MPI_LOCK_EXCLUSIVE && type != MPI_LOCK_SHARED) ||
      (assert & ~MPI_MODE_NOCHECK) ||
      static_cast<unsigned>(rank) >= static_cast<unsigned>(w_.nranks_))
    return false;
  const Access now = w_.access_.load(std::memory_order_relaxed);
  std::atomic<LockEntry*>* open = open_.load(std::memory_order_relaxed);
  if ((now != Access::kNone && now != Access::kLock) || !open ||
      open[rank].load(std::memory_order_relaxed))
    return false;
  // Self locks and shared-memory windows take their words at once (lock()).
  LockEntry* e = entries_[static_cast<size_t>(rank)].get();
  if (!e || rank == w_.rank_ || w_.flavor_ == Flavor::kShared) return false;
  open_entry(e, type, rank, w_.ci_->local_index(rank), assert);
  return true;
}

inline bool PassiveEpochs::unlock_direct(int rank) {
  if (w_.threads_ || static_cast<unsigned>(rank) >= static_cast<unsigned>(w_.nranks_) ||
      w_.access_.load(std::memory_order_relaxed) != Access::kLock)
    return false;
  LockEntry* e = find(rank);
  if (!e || e->closing || !w_.direct_local(e->local)) return false;
  e->closing = true;
  NodePath::unlock_words(w_, *e);
  close_entry(rank);
  return true;
}

}  // namespace osprey::rma
