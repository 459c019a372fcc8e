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
#include <initializer_list>
#include <span>

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

// The same key from a constructor's arguments as the program passed them (type_constructors.cc
// in the binding): `ints` in pieces (a count, then an array of them...), each list in the order
// MPI_Type_get_contents reports it, so that a type keyed here and one keyed from the host's
// answers match when they were built alike.
bool constructor_key(int comb, std::initializer_list<std::span<const int>> ints,
                     std::span<const MPI_Aint> aints, std::span<const MPI_Datatype> types,
                     ConstructorKey* k);

// The program has just built t with the constructor keyed k: if a type built alike was decoded,
// that decoding is t's from now on (type_cache.cc), and t's first RMA call neither asks the host
// about its constructor nor looks in this memo.
void adopt_decoding(MPI_Datatype t, const ConstructorKey& k);

// Whether any decoding is kept: before the first, a new type cannot be matched and is not keyed.
bool memo_in_use();

// The decoding kept for an equal key, retained for the caller; nullptr if none.
const TypeInfo* memo_find(const ConstructorKey& k);

// Keeps `info` (retained here) as the decoding of k, in place of what its slot held.
void memo_keep(const ConstructorKey& k, const TypeInfo* info);

// Whether `info` was decoded under a key equal to k.
bool decoded_as(const TypeInfo& info, const ConstructorKey& k);

}  // namespace osprey::dt
