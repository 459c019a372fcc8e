// The memo's keys (constructor_memo.h) of the common datatype constructors, from the arguments
// the program passes them: laid out as the key of what MPI_Type_get_contents reports for the
// type built, so that a type keyed here matches the decoding of one built alike. The binding
// (mpi/type_constructors.cc) keys each type it sees built; false: not keyed (a derived
// argument, or too long).
#pragma once

#include <mpi.h>

#include "datatype/constructor_memo.h"

namespace osprey::dt::keys {

bool contiguous(int count, MPI_Datatype old, ConstructorKey* k);
bool vector(int count, int len, int stride, MPI_Datatype old, ConstructorKey* k);
bool hvector(int count, int len, MPI_Aint stride, MPI_Datatype old, ConstructorKey* k);
bool indexed(int count, const int lens[], const int displs[], MPI_Datatype old, ConstructorKey* k);
bool hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
              ConstructorKey* k);
bool indexed_block(int count, int len, const int displs[], MPI_Datatype old, ConstructorKey* k);
bool hindexed_block(int count, int len, const MPI_Aint displs[], MPI_Datatype old,
                    ConstructorKey* k);
bool structure(int count, const int lens[], const MPI_Aint displs[], const MPI_Datatype types[],
               ConstructorKey* k);
bool subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
              MPI_Datatype old, ConstructorKey* k);
bool resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, ConstructorKey* k);

}  // namespace osprey::dt::keys
