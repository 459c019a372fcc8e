#include "datatype/type_pool.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <unordered_set>

#include "datatype/type_info.h"
#include "util/handle_key.h"
#include "util/spin_mutex.h"

namespace osprey::dt {
namespace {

// Set-associative by the key's hash (a type freed twice lands in its own set, so a scan of one
// set finds it): enough for a program that alternates a few shapes, each with a few handles
// alive at once; past that the oldest of a set is freed at the host, as without the pool.
constexpr std::size_t kSets = 8;
constexpr std::size_t kWays = 4;

struct Entry {
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  const TypeInfo* info = nullptr;  // retained while kept
  uint64_t stamp = 0;              // when kept: the oldest goes first
};

struct Pool {
  SpinMutex mu;  // never held while calling the host
  Entry sets[kSets][kWays];
  uint64_t clock = 0;
  std::atomic<int> kept{0};  // read without the lock: an empty pool costs a constructor a load
  std::atomic<bool> open{false};
  bool closed = false;  // for good
  std::atomic<bool> any_unkept{false};
  std::unordered_set<uint64_t> unkept;  // handle values never kept (pool_never_keep)
};

// Never destroyed: MPI_Type_free may run from destructors at exit.
Pool& pool = *new Pool;

Entry (&set_of(uint64_t key_hash))[kWays] {
  return pool.sets[key_hash % kSets];
}

}  // namespace

void pool_open() {
  pool.mu.lock();
  if (!pool.closed) pool.open.store(true, std::memory_order_relaxed);
  pool.mu.unlock();
}

std::vector<MPI_Datatype> pool_close() {
  std::vector<MPI_Datatype> freed;
  std::vector<const TypeInfo*> infos;
  pool.mu.lock();
  pool.closed = true;
  pool.open.store(false, std::memory_order_relaxed);
  for (auto& set : pool.sets)
    for (Entry& e : set) {
      if (e.handle == MPI_DATATYPE_NULL) continue;
      freed.push_back(e.handle);
      infos.push_back(e.info);
      e = Entry{};
    }
  pool.kept.store(0, std::memory_order_relaxed);
  pool.mu.unlock();
  for (const TypeInfo* info : infos)
    release(info);
  return freed;
}

bool pool_in_use() {
  return pool.kept.load(std::memory_order_relaxed) > 0;
}

MPI_Datatype pool_take(const ConstructorKey& k) {
  MPI_Datatype found = MPI_DATATYPE_NULL;
  const TypeInfo* info = nullptr;
  pool.mu.lock();
  for (Entry& e : set_of(k.hash)) {
    if (e.handle == MPI_DATATYPE_NULL || !decoded_as(*e.info, k)) continue;
    found = e.handle;
    info = e.info;
    e = Entry{};
    pool.kept.fetch_sub(1, std::memory_order_relaxed);
    break;
  }
  pool.mu.unlock();
  if (info) release(info);  // the handle's cache entry holds it still
  return found;
}

Keep pool_keep(MPI_Datatype t, MPI_Datatype* evicted) {
  *evicted = MPI_DATATYPE_NULL;
  if (!pool.open.load(std::memory_order_relaxed)) return Keep::kNot;
  const uint64_t key = handle_key(t);
  const TypeInfo* info = retain_cached(t);  // (a marked handle is refused under the lock below)
  if (!info) return Keep::kNot;
  if (info->key_words.empty()) {
    release(info);
    return Keep::kNot;
  }
  const TypeInfo* let_go = nullptr;
  Keep verdict = Keep::kKept;
  pool.mu.lock();
  Entry* slot = nullptr;
  for (Entry& e : set_of(info->key_hash)) {
    if (e.handle == t) {
      verdict = Keep::kTwice;
      break;
    }
    if (!slot || (slot->handle != MPI_DATATYPE_NULL &&
                  (e.handle == MPI_DATATYPE_NULL || e.stamp < slot->stamp)))
      slot = &e;
  }
  if (!pool.open.load(std::memory_order_relaxed) ||
      (pool.any_unkept.load(std::memory_order_relaxed) && pool.unkept.count(key)))
    verdict = Keep::kNot;
  if (verdict == Keep::kKept) {
    if (slot->handle != MPI_DATATYPE_NULL) {
      *evicted = slot->handle;
      let_go = slot->info;
    } else {
      pool.kept.fetch_add(1, std::memory_order_relaxed);
    }
    *slot = Entry{t, info, ++pool.clock};
  }
  pool.mu.unlock();
  if (verdict != Keep::kKept) release(info);
  if (let_go) release(let_go);
  return verdict;
}

MPI_Datatype pool_never_keep(MPI_Datatype t) {
  MPI_Datatype was_kept = MPI_DATATYPE_NULL;
  const TypeInfo* info = nullptr;
  pool.mu.lock();
  pool.unkept.insert(handle_key(t));
  pool.any_unkept.store(true, std::memory_order_relaxed);
  for (auto& set : pool.sets)
    for (Entry& e : set)
      if (e.handle == t) {
        was_kept = t;
        info = e.info;
        e = Entry{};
        pool.kept.fetch_sub(1, std::memory_order_relaxed);
      }
  pool.mu.unlock();
  if (info) release(info);
  return was_kept;
}

void pool_born(MPI_Datatype t) {
  if (!pool.any_unkept.load(std::memory_order_relaxed)) return;
  pool.mu.lock();
  pool.unkept.erase(handle_key(t));
  pool.mu.unlock();
}

}  // namespace osprey::dt
