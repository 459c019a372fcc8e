// Types built the same way share one decoding. A program that builds, commits and frees a
// datatype around every operation (a runtime that makes a type per call) hands osprey a new
// handle each time, but the same constructor with the same arguments: its decoding is kept
// here, keyed by the constructor, so that the next such handle costs the host's answers about
// its constructor and a lookup instead of the decoding, its allocations and the host's size
// and extent queries.
//
// Only constructors whose every datatype argument is predefined are keyed: a derived
// argument's handle may be freed and reused for another type, so equal handles there do not
// mean equal types.
#pragma once

#include <cstddef>
#include <cstdint>

#include "datatype/flatten.h"
#include "util/small_vec.h"

namespace osprey::dt {

struct ConstructorKey {
  // Past it a constructor is not keyed (an indexed type of some 1,000 blocks), so that the
  // memo holds at most 1 MiB of keys.
  static constexpr std::size_t kMaxWords = 2048;
  uint64_t hash = 0;
  SmallVec<uint64_t, 48> words;  // zero-padded to a multiple of 4: the hash reads rounds of 4
};

// The key of constructor c; false if c is not keyed (see above).
bool constructor_key(const Contents& c, ConstructorKey* k);

// The decoding kept for an equal key, retained for the caller; nullptr if none.
const TypeInfo* memo_find(const ConstructorKey& k);

// Keeps `info` (retained here) as the decoding of k, in place of what its slot held.
void memo_keep(const ConstructorKey& k, const TypeInfo* info);

}  // namespace osprey::dt
