#include "datatype/constructor_memo.h"

#include <cstring>
#include <vector>

#include "util/spin_mutex.h"

namespace osprey::dt {
namespace {

// Direct-mapped by the key's hash: a program that alternates a few shapes keeps them all, and
// one that makes a new shape per call only replaces slots.
constexpr std::size_t kSlots = 64;

struct Slot {
  uint64_t hash = 0;
  std::vector<uint64_t> words;
  const TypeInfo* info = nullptr;
};

struct Memo {
  // Held for a comparison or a copy of a key, never while calling the host.
  SpinMutex mu;
  Slot slots[kSlots];
};

// Never destroyed: the decodings it keeps stay reachable until the process ends.
Memo& memo = *new Memo;

bool same_key(const Slot& s, const ConstructorKey& k) {
  return s.hash == k.hash && s.words.size() == k.words.size() &&
         std::memcmp(s.words.data(), k.words.data(), k.words.size() * sizeof(uint64_t)) == 0;
}

}  // namespace

bool constructor_key(const Contents& c, ConstructorKey* k) {
  const std::size_t n = 4 + c.ints.size() + c.aints.size() + c.types.size();
  if (c.comb == MPI_COMBINER_NAMED || n > ConstructorKey::kMaxWords) return false;
  for (MPI_Datatype t : c.types)
    if (!predefined(t)) return false;
  k->words.resize((n + 3) / 4 * 4);  // the padding stays zero
  uint64_t* w = k->words.data();
  *w++ = static_cast<uint64_t>(c.comb);
  *w++ = c.ints.size();
  *w++ = c.aints.size();
  *w++ = c.types.size();
  for (int64_t v : c.ints)
    *w++ = static_cast<uint64_t>(v);
  for (MPI_Aint v : c.aints)
    *w++ = static_cast<uint64_t>(v);
  for (MPI_Datatype t : c.types)
    *w++ = handle_key(t);
  // Four independent lanes: one multiply chain over a 20-word key was a third of a memo hit.
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull, c2 = 1, d = 2;
  for (std::size_t i = 0; i < k->words.size(); i += 4) {
    a = (a ^ k->words[i]) * kPrime;
    b = (b ^ k->words[i + 1]) * kPrime;
    c2 = (c2 ^ k->words[i + 2]) * kPrime;
    d = (d ^ k->words[i + 3]) * kPrime;
  }
  const uint64_t all = (a ^ (b >> 7)) * 0x9E3779B97F4A7C15ull + (c2 ^ (d << 11));
  k->hash = all ^ (all >> 29);
  return true;
}

const TypeInfo* memo_find(const ConstructorKey& k) {
  Slot& s = memo.slots[k.hash % kSlots];
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
  s.hash = k.hash;
  s.words.swap(words);
  s.info = info;
  memo.mu.unlock();
  if (old) release(old);  // outside the lock: it may free, as may the old key going below
}

}  // namespace osprey::dt
