#include "datatype/constructor_keys.h"

#include <span>

namespace osprey::dt::keys {
namespace {

// n entries from p; none if n is negative (the host refuses such a constructor).
template <class T>
std::span<const T> first(const T* p, int n) {
  return {p, n > 0 ? static_cast<std::size_t>(n) : 0};
}

std::span<const int> one(const int& v) {
  return {&v, 1};
}

}  // namespace

bool contiguous(int count, MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_CONTIGUOUS, {one(count)}, {}, {&old, 1}, k);
}

bool vector(int count, int len, int stride, MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_VECTOR, {one(count), one(len), one(stride)}, {}, {&old, 1},
                         k);
}

bool hvector(int count, int len, MPI_Aint stride, MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_HVECTOR, {one(count), one(len)}, {&stride, 1}, {&old, 1}, k);
}

bool indexed(int count, const int lens[], const int displs[], MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_INDEXED,
                         {one(count), first(lens, count), first(displs, count)}, {}, {&old, 1}, k);
}

bool hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
              ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_HINDEXED, {one(count), first(lens, count)},
                         first(displs, count), {&old, 1}, k);
}

bool indexed_block(int count, int len, const int displs[], MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_INDEXED_BLOCK, {one(count), one(len), first(displs, count)},
                         {}, {&old, 1}, k);
}

bool hindexed_block(int count, int len, const MPI_Aint displs[], MPI_Datatype old,
                    ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_HINDEXED_BLOCK, {one(count), one(len)}, first(displs, count),
                         {&old, 1}, k);
}

bool structure(int count, const int lens[], const MPI_Aint displs[], const MPI_Datatype types[],
               ConstructorKey* k) {
  return constructor_key(MPI_COMBINER_STRUCT, {one(count), first(lens, count)},
                         first(displs, count), first(types, count), k);
}

bool subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
              MPI_Datatype old, ConstructorKey* k) {
  return constructor_key(
      MPI_COMBINER_SUBARRAY,
      {one(ndims), first(sizes, ndims), first(subsizes, ndims), first(starts, ndims), one(order)},
      {}, {&old, 1}, k);
}

bool resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, ConstructorKey* k) {
  const MPI_Aint bounds[2] = {lb, extent};
  return constructor_key(MPI_COMBINER_RESIZED, {}, bounds, {&old, 1}, k);
}

}  // namespace osprey::dt::keys
