#include "transport/shm/attach_table.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "progress/backoff.h"

namespace osprey::shm {
namespace {

constexpr uint32_t kFirstCapacity = 64;

void store_entry(AttachEntry& to, const AttachedRegion& r) {
  to.base.store(r.base, std::memory_order_release);
  to.len.store(r.len, std::memory_order_release);
  to.fd.store(r.fd, std::memory_order_release);
  to.moved.store(r.moved ? 1 : 0, std::memory_order_release);
  to.file_base.store(r.file_base, std::memory_order_release);
  to.file_len.store(r.file_len, std::memory_order_release);
  to.id.store(r.id, std::memory_order_release);
}

AttachedRegion load_entry(const AttachEntry& e) {
  AttachedRegion r;
  r.base = e.base.load(std::memory_order_acquire);
  r.len = e.len.load(std::memory_order_acquire);
  r.fd = e.fd.load(std::memory_order_acquire);
  r.moved = e.moved.load(std::memory_order_acquire) != 0;
  r.file_base = e.file_base.load(std::memory_order_acquire);
  r.file_len = e.file_len.load(std::memory_order_acquire);
  r.id = e.id.load(std::memory_order_acquire);
  return r;
}

void copy_entry(AttachEntry& to, const AttachEntry& from) {
  store_entry(to, load_entry(from));
}

// Entries are sorted by (base, len). Index of the first entry ordered after (base, len).
uint32_t upper_bound(const AttachEntry* e, uint32_t n, uint64_t base, uint64_t len) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const uint64_t b = e[mid].base.load(std::memory_order_acquire);
    if (b < base || (b == base && e[mid].len.load(std::memory_order_acquire) <= len))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Where [lo, hi) lies in the union of the regions, regions that touch counting as one.
AttachLookup search(const AttachEntry* e, uint32_t n, uint64_t lo, uint64_t hi) {
  AttachLookup out;
  uint32_t i = upper_bound(e, n, lo, UINT64_MAX);
  if (i == 0) return out;
  --i;
  AttachedRegion r = load_entry(e[i]);
  uint64_t end = r.base + r.len;
  if (lo >= end) return out;
  out.region = r;
  out.single = end >= hi;
  out.shared = r.shared();
  while (end < hi) {
    if (++i >= n) return out;
    r = load_entry(e[i]);
    if (r.base != end) return out;  // a gap
    out.shared |= r.shared();
    end = r.base + r.len;
  }
  out.inside = true;
  return out;
}

}  // namespace

AttachTables::~AttachTables() {
  for (SegmentName& n : own_files_)
    Segment::unlink(n);
}

void AttachTables::init(AttachTableHeader* headers, uint32_t nranks, uint32_t me) {
  headers_ = headers;
  me_ = me;
  current_ = std::vector<std::atomic<const Mapping*>>(nranks);
  hints_ = std::make_unique<Hint[]>(nranks);
}

Status AttachTables::grow(uint32_t capacity) {
  auto m = std::make_unique<Mapping>();
  SegmentName name;
  OSPREY_TRY(Segment::create_file(capacity * sizeof(AttachEntry), m->seg, name));
  auto* entries = reinterpret_cast<AttachEntry*>(m->seg.base());
  AttachTableHeader& h = headers_[me_];
  const uint32_t n = h.count.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i)
    copy_entry(entries[i], own_[i]);
  h.seq.fetch_add(1, std::memory_order_acq_rel);
  h.pid.store(static_cast<int32_t>(getpid()), std::memory_order_release);
  h.fd.store(name.owner_fd, std::memory_order_release);
  h.capacity.store(capacity, std::memory_order_release);
  const uint32_t gen = h.generation.load(std::memory_order_relaxed) + 1;
  h.generation.store(gen, std::memory_order_release);
  h.seq.fetch_add(1, std::memory_order_release);
  m->generation = gen;
  m->capacity = capacity;
  m->entries = entries;
  own_ = entries;
  own_capacity_ = capacity;
  own_files_.push_back(name);
  std::lock_guard<std::mutex> g(map_mu_);
  current_[me_].store(m.get(), std::memory_order_release);
  mappings_.push_back(std::move(m));
  return kOk;
}

Status AttachTables::insert(const AttachedRegion& r) {
  const uint64_t base = r.base, len = r.len;
  std::lock_guard<std::mutex> g(write_mu_);
  AttachTableHeader& h = headers_[me_];
  const uint32_t n = h.count.load(std::memory_order_relaxed);
  const uint32_t pos = own_ ? upper_bound(own_, n, base, len) : 0;
  if (len > 0) {
    for (uint32_t i = pos; i-- > 0;) {
      const uint64_t l = own_[i].len.load(std::memory_order_relaxed);
      if (l == 0) continue;
      if (own_[i].base.load(std::memory_order_relaxed) + l > base)
        return Err(MPI_ERR_RMA_ATTACH, "osprey: memory overlaps an attached region");
      break;
    }
    for (uint32_t i = pos; i < n; ++i) {
      if (own_[i].len.load(std::memory_order_relaxed) == 0) continue;
      if (own_[i].base.load(std::memory_order_relaxed) < base + len)
        return Err(MPI_ERR_RMA_ATTACH, "osprey: memory overlaps an attached region");
      break;
    }
  }
  if (n == own_capacity_) OSPREY_TRY(grow(std::max(kFirstCapacity, 2 * own_capacity_)));
  h.seq.fetch_add(1, std::memory_order_acq_rel);
  for (uint32_t i = n; i > pos; --i)
    copy_entry(own_[i], own_[i - 1]);
  store_entry(own_[pos], r);
  h.count.store(n + 1, std::memory_order_release);
  h.seq.fetch_add(1, std::memory_order_release);
  return kOk;
}

bool AttachTables::erase(uint64_t base, AttachedRegion* out) {
  std::lock_guard<std::mutex> g(write_mu_);
  AttachTableHeader& h = headers_[me_];
  const uint32_t n = h.count.load(std::memory_order_relaxed);
  if (!own_) return false;
  uint32_t i = upper_bound(own_, n, base, 0);  // past the zero-length regions at `base`
  if (i == 0 || own_[i - 1].base.load(std::memory_order_relaxed) != base) {
    if (i == n || own_[i].base.load(std::memory_order_relaxed) != base) return false;
  } else {
    --i;
  }
  *out = load_entry(own_[i]);
  h.seq.fetch_add(1, std::memory_order_acq_rel);
  for (; i + 1 < n; ++i)
    copy_entry(own_[i], own_[i + 1]);
  h.count.store(n - 1, std::memory_order_release);
  h.seq.fetch_add(1, std::memory_order_release);
  return true;
}

std::vector<AttachedRegion> AttachTables::own_regions() {
  std::lock_guard<std::mutex> g(write_mu_);
  std::vector<AttachedRegion> out;
  const uint32_t n = own_ && headers_ ? headers_[me_].count.load(std::memory_order_relaxed) : 0;
  for (uint32_t i = 0; i < n; ++i)
    out.push_back(load_entry(own_[i]));
  return out;
}

bool AttachTables::alone(uint64_t base, uint64_t len) {
  std::lock_guard<std::mutex> g(write_mu_);
  const uint32_t n = own_ ? headers_[me_].count.load(std::memory_order_relaxed) : 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t b = own_[i].base.load(std::memory_order_relaxed);
    if (b <= base + len && base <= b + own_[i].len.load(std::memory_order_relaxed)) return false;
  }
  return true;
}

Status AttachTables::remap(uint32_t local, uint64_t seq) {
  std::lock_guard<std::mutex> g(map_mu_);
  AttachTableHeader& h = headers_[local];
  const uint32_t gen = h.generation.load(std::memory_order_acquire);
  const uint32_t cap = h.capacity.load(std::memory_order_acquire);
  const int32_t pid = h.pid.load(std::memory_order_acquire);
  const int32_t fd = h.fd.load(std::memory_order_acquire);
  if (h.seq.load(std::memory_order_acquire) != seq) return kOk;  // moved meanwhile: retry
  const Mapping* cur = current_[local].load(std::memory_order_acquire);
  if (cur && cur->generation == gen) return kOk;  // another thread mapped it
  auto m = std::make_unique<Mapping>();
  if (!Segment::attach(Segment::file_name(pid, fd), cap * sizeof(AttachEntry), m->seg).ok())
    return Err(MPI_ERR_RMA_RANGE, "osprey: cannot map a node peer's attach table");
  m->generation = gen;
  m->capacity = cap;
  m->entries = reinterpret_cast<const AttachEntry*>(m->seg.base());
  current_[local].store(m.get(), std::memory_order_release);
  mappings_.push_back(std::move(m));
  return kOk;
}

template <class Read>
Status AttachTables::read_table(uint32_t local, Read read, uint64_t* seq) {
  const AttachTableHeader& h = headers_[local];
  std::optional<progress::Backoff> b;  // the owner is between two stores; a dead owner is noticed
  for (;;) {
    const uint64_t s1 = h.seq.load(std::memory_order_acquire);
    if (s1 & 1) {
      if (!b) b.emplace();
      b->pause();
      continue;
    }
    const AttachEntry* entries = nullptr;
    uint32_t n = 0;
    if (h.capacity.load(std::memory_order_acquire) != 0) {
      const uint32_t gen = h.generation.load(std::memory_order_acquire);
      const Mapping* m = current_[local].load(std::memory_order_acquire);
      if (!m || m->generation != gen) {
        OSPREY_TRY(remap(local, s1));
        continue;
      }
      entries = m->entries;
      n = std::min(h.count.load(std::memory_order_acquire), m->capacity);
    }
    read(entries, n);
    if (h.seq.load(std::memory_order_relaxed) == s1) {
      if (seq) *seq = s1;
      return kOk;
    }
  }
}

bool AttachTables::hinted(uint32_t local, uint64_t lo, uint64_t hi, AttachLookup* out) const {
  const Hint& k = hints_[local];
  const uint32_t v = k.version.load(std::memory_order_acquire);
  const uint64_t now = headers_[local].seq.load(std::memory_order_acquire);
  // Acquire loads of the hint (as load_entry's) keep the version's second load after them,
  // without a fence (ThreadSanitizer does not take fences).
  if ((v & 1) || now != k.seq.load(std::memory_order_acquire)) return false;
  const AttachedRegion r = load_entry(k.region);
  if (k.version.load(std::memory_order_relaxed) != v || lo < r.base || hi > r.base + r.len)
    return false;
  out->inside = out->single = true;
  out->shared = r.shared();
  out->region = r;
  out->seq = now;
  return true;
}

void AttachTables::keep_hint(uint32_t local, uint64_t seq, const AttachedRegion& r) {
  Hint& k = hints_[local];
  uint32_t v = k.version.load(std::memory_order_relaxed);
  if ((v & 1) || !k.version.compare_exchange_strong(v, v + 1, std::memory_order_acquire)) return;
  // Release stores (as store_entry's): a reader that sees any of them sees the odd version.
  k.seq.store(seq, std::memory_order_release);
  store_entry(k.region, r);
  k.version.store(v + 2, std::memory_order_release);
}

Status AttachTables::find(uint32_t local, uint64_t lo, uint64_t hi, AttachLookup* out) {
  if (hinted(local, lo, hi, out)) return kOk;
  uint64_t seq = 0;
  OSPREY_TRY(read_table(
      local,
      [&](const AttachEntry* e, uint32_t n) { *out = n ? search(e, n, lo, hi) : AttachLookup{}; },
      &seq));
  out->seq = seq;
  if (out->inside && out->single) keep_hint(local, seq, out->region);
  return kOk;
}

Status AttachTables::holds(uint32_t local, uint64_t id, bool* held) {
  return read_table(local, [&](const AttachEntry* e, uint32_t n) {
    *held = false;
    for (uint32_t i = 0; i < n && !*held; ++i)
      *held = e[i].id.load(std::memory_order_acquire) == id;
  });
}

}  // namespace osprey::shm
