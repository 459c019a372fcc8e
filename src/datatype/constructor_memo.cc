#include "datatype/constructor_memo.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "util/spin_mutex.h"

namespace osprey::dt {
namespace {

// Direct-mapped by the key's hash: a program that alternates a few shapes keeps them all, and
// one that makes a new shape per call only replaces slots.
constexpr std::size_t kSlots = 64;

struct Slot {
  std::atomic<uint64_t> hash{0};  // read without the lock first: a miss takes none
  std::vector<uint64_t> words;
  const TypeInfo* info = nullptr;
};

struct Memo {
  // Held for a comparison or a copy of a key, never while calling the host.
  SpinMutex mu;
  Slot slots[kSlots];
  std::atomic<bool> used{false};
};

// Never destroyed: the decodings it keeps stay reachable until the process ends.
Memo& memo = *new Memo;

// Whether a key kept as (hash, words) equals k.
bool equal_key(uint64_t hash, const std::vector<uint64_t>& words, const ConstructorKey& k) {
  return hash == k.hash && words.size() == k.words.size() &&
         std::memcmp(words.data(), k.words.data(), k.words.size() * sizeof(uint64_t)) == 0;
}

bool same_key(const Slot& s, const ConstructorKey& k) {
  return equal_key(s.hash.load(std::memory_order_relaxed), s.words, k);
}

// Marks a large-count constructor's key (combiner values are small).
constexpr int kLargeCount = 1 << 24;

// Lays out k's words for a constructor of ni integers, na addresses and nt datatypes and
// returns where its arguments go; nullptr if it is too long to key.
uint64_t* key_start(ConstructorKey* k, int comb, std::size_t ni, std::size_t na, std::size_t nt) {
  const std::size_t n = 4 + ni + na + nt;
  if (n > ConstructorKey::kMaxWords) return nullptr;
  k->words.resize((n + 3) / 4 * 4);
  uint64_t* w = k->words.data();
  std::fill(w + n, w + k->words.size(), 0);  // the hash reads the padding
  *w++ = static_cast<uint64_t>(comb);
  *w++ = ni;
  *w++ = na;
  *w++ = nt;
  return w;
}

void key_seal(ConstructorKey* k) {
  // Four independent lanes: one multiply chain over a 20-word key was a third of a memo hit.
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull, c = 1, d = 2;
  for (std::size_t i = 0; i < k->words.size(); i += 4) {
    a = (a ^ k->words[i]) * kPrime;
    b = (b ^ k->words[i + 1]) * kPrime;
    c = (c ^ k->words[i + 2]) * kPrime;
    d = (d ^ k->words[i + 3]) * kPrime;
  }
  const uint64_t all = (a ^ (b >> 7)) * 0x9E3779B97F4A7C15ull + (c ^ (d << 11));
  k->hash = all ^ (all >> 29);
}

template <class Types>
bool all_predefined(const Types& types) {
  for (MPI_Datatype t : types)
    if (!predefined(t)) return false;
  return true;
}

}  // namespace

bool constructor_key(const Contents& c, ConstructorKey* k) {
  if (c.comb == MPI_COMBINER_NAMED || !all_predefined(c.types)) return false;
  // A large-count constructor's type answers only MPI_Type_get_envelope_c: never the same key
  // as the plain constructor with equal numbers (the pool would hand it to that constructor).
  const int comb = c.large ? c.comb | kLargeCount : c.comb;
  uint64_t* w = key_start(k, comb, c.ints.size(), c.aints.size(), c.types.size());
  if (!w) return false;
  for (int64_t v : c.ints)
    *w++ = static_cast<uint64_t>(v);
  for (MPI_Aint v : c.aints)
    *w++ = static_cast<uint64_t>(v);
  for (MPI_Datatype t : c.types)
    *w++ = handle_key(t);
  key_seal(k);
  return true;
}

bool constructor_key(int comb, std::initializer_list<std::span<const int>> ints,
                     std::span<const MPI_Aint> aints, std::span<const MPI_Datatype> types,
                     ConstructorKey* k) {
  if (!all_predefined(types)) return false;
  std::size_t ni = 0;
  for (std::span<const int> piece : ints)
    ni += piece.size();
  uint64_t* w = key_start(k, comb, ni, aints.size(), types.size());
  if (!w) return false;
  for (std::span<const int> piece : ints)
    for (int v : piece)
      *w++ = static_cast<uint64_t>(static_cast<int64_t>(v));
  for (MPI_Aint v : aints)
    *w++ = static_cast<uint64_t>(v);
  for (MPI_Datatype t : types)
    *w++ = handle_key(t);
  key_seal(k);
  return true;
}

bool memo_in_use() {
  return memo.used.load(std::memory_order_relaxed);
}

const TypeInfo* memo_find(const ConstructorKey& k) {
  Slot& s = memo.slots[k.hash % kSlots];
  // Most constructors a program calls were never decoded (types for point-to-point): they
  // should not meet on the lock, from many threads.
  if (s.hash.load(std::memory_order_relaxed) != k.hash) return nullptr;
  memo.mu.lock();
  const TypeInfo* found = s.info && same_key(s, k) ? s.info : nullptr;
  if (found) retain(found);
  memo.mu.unlock();
  return found;
}

void memo_keep(const ConstructorKey& k, const TypeInfo* info) {
  retain(info);
  // The key's copy is made outside the lock (it may allocate), then swapped in.
  std::vector<uint64_t> words(k.words.begin(), k.words.end());
  Slot& s = memo.slots[k.hash % kSlots];
  memo.mu.lock();
  const TypeInfo* old = s.info;
  s.hash.store(k.hash, std::memory_order_relaxed);
  s.words.swap(words);
  s.info = info;
  memo.mu.unlock();
  memo.used.store(true, std::memory_order_relaxed);
  if (old) release(old);  // outside the lock: it may free, as may the old key going below
}

bool decoded_as(const TypeInfo& info, const ConstructorKey& k) {
  return equal_key(info.key_hash, info.key_words, k);
}

}  // namespace osprey::dt
