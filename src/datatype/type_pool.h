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
// (whose delete callback must run at the free). The binding (mpi/type_free.cc,
// mpi/type_constructors.cc, mpi/type_names.cc) frees at the host what the pool lets go.
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

// The program named t (MPI_Type_set_name): it is not kept when freed; until then.
void pool_mark_named(MPI_Datatype t);

// t is freed at the host: its handle may come back as another type.
void pool_unmark(MPI_Datatype t);

}  // namespace osprey::dt
