// A map from 64-bit handle keys to object pointers, read without locks on every RMA call and
// written only when objects are created or freed.
//
// Readers use a sequence lock: they retry if a writer was active while they probed. Data loads
// are acquire and data stores release (free on x86), which orders them against the sequence
// word without standalone fences. Tables that are replaced on growth are kept until the map
// dies, so a reader that raced a resize never touches freed memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "util/cpu.h"
#include "util/spin_mutex.h"

namespace osprey {

template <class V>
class HandleMap {
 public:
  HandleMap() { install(new_table(64)); }
  HandleMap(const HandleMap&) = delete;
  HandleMap& operator=(const HandleMap&) = delete;

  V* find(uint64_t key) const {
    for (;;) {
      const uint64_t s1 = seq_.load(std::memory_order_acquire);
      if (s1 & 1) {
        cpu::relax();
        continue;
      }
      V* found = probe(*table_.load(std::memory_order_acquire), key);
      if (seq_.load(std::memory_order_relaxed) == s1) return found;
    }
  }

  // Inserts or replaces.
  void insert(uint64_t key, V* value) { put(key, value, true); }

  // Inserts unless key is there; returns what key maps to afterwards (value, or the one that
  // was there first).
  V* insert_if_absent(uint64_t key, V* value) { return put(key, value, false); }

  // Removes key (only if it maps to `only`, when given); returns the value it held or nullptr.
  V* erase(uint64_t key, const V* only = nullptr) {
    std::lock_guard<SpinMutex> g(mu_);
    Table* t = table_.load(std::memory_order_relaxed);
    std::size_t i = hash(key) & t->mask;
    for (std::size_t n = 0; n <= t->mask; ++n, i = (i + 1) & t->mask) {
      const uint64_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k == kEmpty) return nullptr;
      if (k == key) {
        V* v = t->slots[i].val.load(std::memory_order_relaxed);
        if (only && v != only) return nullptr;
        begin_write();
        t->slots[i].key.store(kTomb, std::memory_order_release);
        t->slots[i].val.store(nullptr, std::memory_order_release);
        end_write();
        --size_;
        return v;
      }
    }
    return nullptr;
  }

  // How many tables the map keeps (the live one and those replaced by larger ones).
  std::size_t tables() const {
    std::lock_guard<SpinMutex> g(mu_);
    return tables_.size();
  }

  std::size_t size() const {
    std::lock_guard<SpinMutex> g(mu_);
    return size_;
  }

  // Calls f(key, value) for every entry, under the writer lock.
  template <class F>
  void for_each(F&& f) const {
    std::lock_guard<SpinMutex> g(mu_);
    const Table* t = table_.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i <= t->mask; ++i) {
      const uint64_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k != kEmpty && k != kTomb) f(k, t->slots[i].val.load(std::memory_order_relaxed));
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static constexpr uint64_t kTomb = ~uint64_t{0} - 1;

  struct Slot {
    std::atomic<uint64_t> key{kEmpty};
    std::atomic<V*> val{nullptr};
  };
  struct Table {
    std::size_t mask = 0;
    std::unique_ptr<Slot[]> slots;
  };

  V* put(uint64_t key, V* value, bool replace) {
    std::lock_guard<SpinMutex> g(mu_);
    Table* t = table_.load(std::memory_order_relaxed);
    if ((used_ + 1) * 2 > t->mask + 1) t = grow(t);
    Slot* tomb = nullptr;
    std::size_t i = hash(key) & t->mask;
    for (;; i = (i + 1) & t->mask) {
      const uint64_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k == key) {
        if (!replace) return t->slots[i].val.load(std::memory_order_relaxed);
        begin_write();
        t->slots[i].val.store(value, std::memory_order_release);
        end_write();
        return value;
      }
      if (k == kTomb && !tomb) tomb = &t->slots[i];
      if (k == kEmpty) {
        Slot* s = tomb ? tomb : &t->slots[i];
        if (!tomb) ++used_;
        begin_write();
        s->val.store(value, std::memory_order_release);
        s->key.store(key, std::memory_order_release);
        end_write();
        ++size_;
        return value;
      }
    }
  }

  static std::size_t hash(uint64_t k) {
    k ^= k >> 29;
    k *= 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(k ^ (k >> 32));
  }

  static V* probe(const Table& t, uint64_t key) {
    std::size_t i = hash(key) & t.mask;
    for (std::size_t n = 0; n <= t.mask; ++n, i = (i + 1) & t.mask) {
      const uint64_t k = t.slots[i].key.load(std::memory_order_acquire);
      if (k == key) return t.slots[i].val.load(std::memory_order_acquire);
      if (k == kEmpty) return nullptr;
    }
    return nullptr;
  }

  std::unique_ptr<Table> new_table(std::size_t cap) {
    auto t = std::make_unique<Table>();
    t->mask = cap - 1;
    t->slots = std::make_unique<Slot[]>(cap);
    return t;
  }

  Table* install(std::unique_ptr<Table> t) {
    Table* raw = t.get();
    tables_.push_back(std::move(t));
    table_.store(raw, std::memory_order_release);
    return raw;
  }

  // Makes room: a table at least a quarter full doubles; a sparser one that ran out of empty
  // slots (freed entries leave tombstones: a program that makes a datatype per operation frees
  // one per operation) is rebuilt in place. A new table must outlive the readers of the old
  // one, which are not tracked, so the old one is kept: rebuilding into a new table each time
  // kept 62 MB per million datatypes made and freed.
  Table* grow(Table* old) {
    if (size_ * 4 <= old->mask + 1) return rebuild(old);
    auto t = new_table((old->mask + 1) * 2);
    for (std::size_t i = 0; i <= old->mask; ++i) {
      const uint64_t k = old->slots[i].key.load(std::memory_order_relaxed);
      if (k != kEmpty && k != kTomb)
        place(*t, k, old->slots[i].val.load(std::memory_order_relaxed));
    }
    used_ = size_;
    begin_write();
    Table* raw = install(std::move(t));
    end_write();
    return raw;
  }

  // Puts an entry known to be absent into the first empty slot of its probe chain.
  static void place(Table& t, uint64_t k, V* v) {
    std::size_t j = hash(k) & t.mask;
    while (t.slots[j].key.load(std::memory_order_relaxed) != kEmpty)
      j = (j + 1) & t.mask;
    t.slots[j].val.store(v, std::memory_order_release);
    t.slots[j].key.store(k, std::memory_order_release);
  }

  // Readers that probe meanwhile see the sequence move and probe again.
  Table* rebuild(Table* t) {
    std::vector<std::pair<uint64_t, V*>> live;
    live.reserve(size_);
    for (std::size_t i = 0; i <= t->mask; ++i) {
      const uint64_t k = t->slots[i].key.load(std::memory_order_relaxed);
      if (k != kEmpty && k != kTomb)
        live.emplace_back(k, t->slots[i].val.load(std::memory_order_relaxed));
    }
    begin_write();
    for (std::size_t i = 0; i <= t->mask; ++i) {
      t->slots[i].key.store(kEmpty, std::memory_order_release);
      t->slots[i].val.store(nullptr, std::memory_order_release);
    }
    for (const auto& [k, v] : live)
      place(*t, k, v);
    end_write();
    used_ = size_;
    return t;
  }

  // The data stores that follow are release stores, so they cannot move above this one.
  void begin_write() {
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void end_write() {
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  mutable SpinMutex mu_;  // writers only
  std::atomic<uint64_t> seq_{0};
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;
  std::size_t used_ = 0;  // slots that are live or tombstones
  std::size_t size_ = 0;  // live entries
};

}  // namespace osprey
