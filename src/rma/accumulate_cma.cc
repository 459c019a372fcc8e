// Accumulate-style operations and compare-and-swap on a node peer's private memory, reached by
// cross-memory attach (CmaPath). No CPU atomic can reach that memory (the atomicity rules are
// in accumulate.cc's header comment):
// - an operation on many elements holds the target rank's whole-operation lock while no
//   single-element operation is in flight there (BulkOpGuard, acc_gate.h) and takes no stripe:
//   a contiguous array is read, combined and written back a chunk at a time (the local copy
//   stays in the cache; two system calls per chunk), any other layout through one copy of its
//   span with one system call per batch of ranges each way. MPI_REPLACE without a result only
//   writes.
// - a single element is read and written back under its lock stripe, counted in flight
//   (SingleOpGuard), as are the few elements of an operation below bulk_min_elements, under
//   the whole-operation lock.
#include <sys/uio.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "datatype/apply.h"
#include "datatype/elements.h"
#include "datatype/runs.h"
#include "rma/acc_gate.h"
#include "rma/acc_stage.h"
#include "rma/transfer.h"
#include "rma/window.h"
#include "transport/shm/cma.h"

namespace osprey::rma {
namespace {

// The local copy of a target region, kept per thread between operations up to this size (a
// fresh multi-megabyte buffer each time would cost a page fault per 4 KiB).
constexpr std::size_t kKeptMirror = 4u << 20;

// Contiguous arrays go through the local copy in chunks of this size: small enough to stay in
// the cache from the read through the combination to the write back.
constexpr std::size_t kCmaChunk = 256u << 10;

class Mirror {
 public:
  explicit Mirror(std::size_t n) {
    thread_local std::unique_ptr<char[]> kept;
    thread_local std::size_t kept_size = 0;
    if (n > kKeptMirror) {
      own_.reset(new char[n]);
      p_ = own_.get();
      return;
    }
    if (n > kept_size) {
      kept.reset(new char[n]);
      kept_size = n;
    }
    p_ = kept.get();
  }
  char* data() const { return p_; }

 private:
  std::unique_ptr<char[]> own_;
  char* p_ = nullptr;
};

bool dense_or_absent(const dt::TypeInfo* t) {
  return !t || t->dense;
}

}  // namespace

Status Window::apply_cma(const TargetView& t, const RmaOp& op) {
  const dt::TypeInfo& tt = *op.ttype;
  const uint32_t n = tt.elem_size;
  const std::size_t bytes = dt::data_bytes(op.tcount, tt);
  if (bytes == 0) return kOk;
  const std::size_t elems = bytes / n;
  const uint32_t local = static_cast<uint32_t>(t.local);
  if (elems >= bulk_min_ || (t.spans_shared && elems > 1)) {
    // Nothing else updates the rank's memory meanwhile (acc_gate.h): no stripes.
    BulkOpGuard bulk(view_, local);
    return apply_cma_region(t, op, false);
  }
  WholeOpGuard whole(view_.acc(local), elems > 1);
  SingleOpGuard single(view_, node_rank_, local, elems == 1);
  return apply_cma_region(t, op, true);
}

Status Window::apply_cma_region(const TargetView& t, const RmaOp& op, bool striped) {
  const dt::TypeInfo& tt = *op.ttype;
  const dt::Repr r = tt.repr;
  const uint32_t n = tt.elem_size;
  const std::size_t bytes = dt::data_bytes(op.tcount, tt);
  char* remote = reinterpret_cast<char*>(remote_address(t, op.where));
  const bool array = tt.dense && dense_or_absent(op.otype) && dense_or_absent(op.rtype) &&
                     dt::element_bytes(r, n) == n;
  if (array && !striped) return apply_cma_array(t, op, remote + tt.true_lb, bytes);
  // The target region as ranges in the target process, and the stripes of its elements.
  // Kept per thread, like the mirror: a fetch_and_op should not cost three allocations.
  thread_local std::vector<iovec> riov, liov;
  thread_local std::vector<std::size_t> set;
  riov.clear();
  set.clear();
  struct Trim {  // a derived type of many runs does not leave its lists behind
    ~Trim() {
      if (riov.capacity() > 4096) std::vector<iovec>().swap(riov), std::vector<iovec>().swap(liov);
    }
  } trim;
  char* lo = nullptr;
  char* hi = nullptr;
  {
    dt::RunCursor runs(remote, op.tcount, tt);
    char* p;
    std::size_t len;
    while (runs.next(p, len)) {
      riov.push_back({p, len});
      if (striped)
        stripes_.cover(t.local, reinterpret_cast<uint64_t>(p), reinterpret_cast<uint64_t>(p + len),
                       set);
      if (!lo || p < lo) lo = p;
      if (!hi || p + len > hi) hi = p + len;
    }
  }
  // Elements of the pair types (MPI_DOUBLE_INT: 12 data bytes) are loaded and stored as their
  // padded struct (16 bytes): the last one reaches past the data it spans.
  Mirror mirror(static_cast<std::size_t>(hi - lo) + 16);
  auto local = [&](char* p) { return mirror.data() + (p - lo); };
  liov.resize(riov.size());
  for (std::size_t i = 0; i < riov.size(); ++i)
    liov[i] = {local(static_cast<char*>(riov[i].iov_base)), riov[i].iov_len};

  Stripes::Guard g(stripes_, set);  // empty unless striped
  OSPREY_TRY(shm::cma::read(t.pid, liov.data(), liov.size(), riov.data(), riov.size()));
  if (array) {
    // One contiguous run of elements on every side.
    char* te = local(remote) + tt.true_lb;
    if (op.rtype) std::memcpy(static_cast<char*>(op.result) + op.rtype->true_lb, te, bytes);
    if (op.op != dt::Op::kNoOp)
      dt::apply_plain_array(r, n, op.op, te,
                            static_cast<const char*>(op.origin) + op.otype->true_lb, bytes / n);
  } else {
    dt::ElementCursor oc(op.origin, op.otype ? op.ocount : 0, op.otype ? *op.otype : tt);
    dt::ElementCursor rc(op.result, op.rtype ? op.rcount : 0, op.rtype ? *op.rtype : tt);
    dt::ElementCursor tc(local(remote), op.tcount, tt);
    char *oe = nullptr, *re = nullptr, *te = nullptr;
    while (tc.next(te)) {
      if (op.otype) oc.next(oe);
      if (op.rtype) rc.next(re);
      dt::apply_plain(r, n, op.op, te, oe, re);
    }
  }
  if (op.op == dt::Op::kNoOp) return kOk;
  return shm::cma::write(t.pid, liov.data(), liov.size(), riov.data(), riov.size());
}

// A contiguous array of elements on every side, under BulkOpGuard.
Status Window::apply_cma_array(const TargetView& t, const RmaOp& op, char* remote,
                               std::size_t bytes) {
  const char* origin = op.otype ? static_cast<const char*>(op.origin) + op.otype->true_lb : nullptr;
  char* result = op.rtype ? static_cast<char*>(op.result) + op.rtype->true_lb : nullptr;
  return cma_combine(t.pid, remote, op.ttype->repr, op.ttype->elem_size, op.op, origin, result,
                     bytes);
}

// Read, combine and write back a chunk at a time, so that the local copy stays in the cache
// between the three steps.
Status cma_combine(pid_t pid, char* remote, dt::Repr r, uint32_t n, dt::Op op, const char* origin,
                   char* result, std::size_t bytes) {
  if (op == dt::Op::kReplace && !result)  // nothing to read or combine
    return shm::cma::write(pid, remote, origin, bytes);
  const std::size_t chunk = std::min(bytes, kCmaChunk - kCmaChunk % n);
  Mirror mirror(chunk);
  for (std::size_t at = 0; at < bytes; at += chunk) {
    const std::size_t len = std::min(chunk, bytes - at);
    if (op == dt::Op::kNoOp) {
      // Nothing to write back: straight into the result.
      if (result) OSPREY_TRY(shm::cma::read(pid, remote + at, result + at, len));
      continue;
    }
    char* m = mirror.data();
    OSPREY_TRY(shm::cma::read(pid, remote + at, m, len));
    dt::apply_plain_array(r, n, op, m, origin + at, len / n, result ? result + at : nullptr);
    OSPREY_TRY(shm::cma::write(pid, remote + at, m, len));
  }
  return kOk;
}

// Under the element's lock stripe, or the whole-operation lock (settle).
Status cma_cas(pid_t pid, char* remote, dt::Repr r, uint32_t n, const char* origin,
               const char* compare, char* result) {
  unsigned char cur[16];
  OSPREY_TRY(shm::cma::read(pid, remote, cur, n));
  unsigned char next[16];
  std::memcpy(next, cur, n);
  dt::cas_plain(r, n, next, origin, compare, result);
  if (std::memcmp(next, cur, n) != 0) return shm::cma::write(pid, remote, next, n);
  return kOk;
}

Status Window::cas_cma(const TargetView& t, const RmaOp& op) {
  const dt::TypeInfo& ti = *op.ttype;
  const uint32_t n = ti.elem_size;
  char* remote = reinterpret_cast<char*>(remote_address(t, op.where)) + ti.true_lb;
  const std::size_t st = stripes_.index(t.local, reinterpret_cast<uint64_t>(remote));
  SingleOpGuard single(view_, node_rank_, static_cast<uint32_t>(t.local));
  stripes_.lock(st);
  const Status rs = cma_cas(t.pid, remote, ti.repr, n, static_cast<const char*>(op.origin),
                            static_cast<const char*>(op.compare), static_cast<char*>(op.result));
  stripes_.unlock(st);
  return rs;
}

}  // namespace osprey::rma
