// Freed types kept for the next constructor called alike. A program that builds, commits and
// frees a datatype around every operation (a runtime that makes a type per call) pays the
// host's constructor, commit and free each time: under MPICH 0.2-0.5 us for an 8x64 vector,
// subarray or indexed type, more than the rest of the operation. When such a type is freed
// through MPI_Type_free, its handle is kept here (the host's type alive), and the next
// constructor with the same arguments (the same key, constructor_memo.h) gets it back without
// asking the host.
//
// What the program can tell is what it could tell of a type the host built anew: the same
// constructor and arguments (all of them predefined types), a fresh handle (no live handle is
// handed out twice), committed or not as it may still commit. Types whose freeing the program
// could observe are never kept: a named one, and any once a type attribute's keyval exists
// (whose delete callback must run at the free). Nor one whose free may not be the program's
// last reference: MPICH's MPI_Type_get_contents returns the very handle of a derived argument
// (one reference more, which the caller frees), so a handle it returned stays unkept until the
// host gives that value out anew. The binding (mpi/type_free.cc, mpi/type_constructors.cc,
// mpi/type_names.cc) frees at the host what the pool lets go.
#pragma once

#include <mpi.h>

#include <vector>

#include "datatype/constructor_memo.h"

namespace osprey::dt {

// Starts keeping types (after the host's MPI_Init).
void pool_open();

// Stops keeping types for good (a type keyval was created, or MPI is finalizing); returns the
// ones kept, which the caller frees at the host.
std::vector<MPI_Datatype> pool_close();

// Whether a type is kept: before the first, a constructor need not key its arguments.
bool pool_in_use();

// A kept type built with key k, no longer kept; MPI_DATATYPE_NULL if none.
MPI_Datatype pool_take(const ConstructorKey& k);

enum class Keep {
  kKept,   // the program's free is done
  kNot,    // the host must free it
  kTwice,  // already kept: the program freed a handle it had freed before
};

// The program frees t: keeps it if it is a decoded type of a keyed constructor. *evicted is a
// type let go to make room, which the caller frees at the host (or MPI_DATATYPE_NULL).
Keep pool_keep(MPI_Datatype t, MPI_Datatype* evicted);

// t is never kept: it was named, or MPI_Type_get_contents returned it (see above), until the
// host builds a new type with that handle value (pool_born). Returns t if it was kept (a
// contents query reached a kept type inside another): the caller frees the pool's reference
// at the host, so that no constructor hands out a handle the program holds.
MPI_Datatype pool_never_keep(MPI_Datatype t);

// The host just built t in one of the watched constructors: a new object under that value,
// with one reference, the program's.
void pool_born(MPI_Datatype t);

}  // namespace osprey::dt
