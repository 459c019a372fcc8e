#include "rma/cma_queue.h"

#include <cstring>

#include "rma/served_ops.h"
#include "transport/shm/cma.h"

namespace osprey::rma {
namespace {

// A target's queue issues itself when it holds this many operations (the kernel takes at most
// IOV_MAX ranges per call) or this many staged bytes.
constexpr std::size_t kMaxEntries = 1024;
constexpr std::size_t kStageBytes = 256 * 1024;

// Appends [p, p+n) to v, extending the last range when it ends where this one starts.
void add_range(std::vector<iovec>& v, char* p, std::size_t n) {
  if (!v.empty()) {
    iovec& last = v.back();
    if (static_cast<char*>(last.iov_base) + last.iov_len == p) {
      last.iov_len += n;
      return;
    }
  }
  v.push_back({p, n});
}

}  // namespace

void CmaQueues::init(int node_size, std::size_t limit) {
  if (node_size <= 0) return;
  n_ = static_cast<std::size_t>(node_size);
  q_ = std::make_unique<Queue[]>(n_);
  limit_ = limit < kStageBytes ? limit : kStageBytes;
}

Status CmaQueues::put(int local, pid_t pid, uint64_t remote, const void* src, std::size_t n) {
  Queue& q = q_[static_cast<std::size_t>(local)];
  std::lock_guard<progress::EngineMutex> g(q.mu);
  Status s = kOk;
  if (q.ents.size() == kMaxEntries || q.staged + n > kStageBytes) s = issue(q);
  if (!q.stage) q.stage.reset(new char[kStageBytes]);
  std::memcpy(q.stage.get() + q.staged, src, n);
  q.pid = pid;
  q.ents.push_back({remote, q.staged, n, true});
  q.staged += n;
  q.pending.store(true, std::memory_order_relaxed);
  note_used();
  return s;
}

Status CmaQueues::get(int local, pid_t pid, uint64_t remote, void* dst, std::size_t n) {
  Queue& q = q_[static_cast<std::size_t>(local)];
  std::lock_guard<progress::EngineMutex> g(q.mu);
  Status s = kOk;
  if (q.ents.size() == kMaxEntries) s = issue(q);
  q.pid = pid;
  q.ents.push_back({remote, reinterpret_cast<uintptr_t>(dst), n, false});
  q.pending.store(true, std::memory_order_relaxed);
  note_used();
  return s;
}

Status CmaQueues::issue(Queue& q) {
  Status first = kOk;
  std::size_t i = 0;
  const std::size_t n = q.ents.size();
  while (i < n) {
    // One call per run of operations in one direction, so that a get after a put to the same
    // place reads what the put wrote.
    const bool write = q.ents[i].write;
    q.liov.clear();
    q.riov.clear();
    for (; i < n && q.ents[i].write == write; ++i) {
      const Entry& e = q.ents[i];
      char* l = write ? q.stage.get() + e.local : reinterpret_cast<char*>(e.local);
      add_range(q.liov, l, e.len);
      add_range(q.riov, reinterpret_cast<char*>(e.remote), e.len);
    }
    const Status s =
        write ? shm::cma::write(q.pid, q.liov.data(), q.liov.size(), q.riov.data(), q.riov.size())
              : shm::cma::read(q.pid, q.liov.data(), q.liov.size(), q.riov.data(), q.riov.size());
    if (!s.ok() && first.ok()) first = s;
  }
  q.ents.clear();
  q.staged = 0;
  q.pending.store(false, std::memory_order_release);
  return first;
}

Status CmaQueues::drain(int local, ServedOps* served) {
  if (!q_) return kOk;
  Queue& q = q_[static_cast<std::size_t>(local)];
  // Not pending: nothing queued, or another thread's issue already returned (a thread that is
  // still issuing keeps the flag set until its calls are done).
  if (!q.pending.load(std::memory_order_acquire)) return kOk;
  std::lock_guard<progress::EngineMutex> g(q.mu);
  Status answer;
  if (served && served_alone(q, local, *served, &answer)) return answer;
  return issue(q);
}

bool CmaQueues::served_alone(Queue& q, int local, ServedOps& served, Status* answer) {
  if (q.ents.size() != 1) return false;
  const Entry& e = q.ents.front();
  if (e.len > ServedOps::kDataMax || !served.offer(static_cast<uint32_t>(local))) return false;
  ServedOp op;
  op.kind = e.write ? ServedOp::kPut : ServedOp::kGet;
  op.bytes = static_cast<uint32_t>(e.len);
  op.address = e.remote;
  if (e.write)
    op.data = q.stage.get() + e.local;
  else
    op.result = reinterpret_cast<void*>(e.local);
  if (!served.ask(static_cast<uint32_t>(local), op, answer)) return false;
  q.ents.clear();
  q.staged = 0;
  q.pending.store(false, std::memory_order_release);
  return true;
}

Status CmaQueues::drain_all() {
  if (!used_.load(std::memory_order_acquire)) return kOk;
  Status first = kOk;
  for (std::size_t i = 0; i < n_; ++i) {
    const Status s = drain(static_cast<int>(i));
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace osprey::rma
