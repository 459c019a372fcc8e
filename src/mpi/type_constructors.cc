// The common datatype constructors, so that a type the program builds like one before costs
// neither the host's constructor (a freed type built alike is handed back, datatype/type_pool.h)
// nor, in its RMA calls, the host's answers about the constructor and the memo's lookup (it
// shares the decoding from its birth, datatype/constructor_memo.h): a program that builds a type
// around every operation pays for a key and a lookup. Only the MPI_ names are osprey's: its own
// layout types (PMPI_) and the constructors not listed here go straight to the host and are
// decoded on first use as before.
#include "datatype/constructor_keys.h"
#include "datatype/type_pool.h"
#include "mpi/binding.h"

using namespace osprey;

namespace {

// Builds *out with the host's constructor `host` unless a freed type built alike is kept
// (datatype/type_pool.h); then adopts a matching decoding, if any is kept at all.
template <class Host, class Key>
int construct(MPI_Datatype* out, Host host, Key key) {
  dt::ConstructorKey k;
  int keyed = -1;  // not tried yet
  if (out && dt::pool_in_use()) {
    keyed = key(&k);
    if (keyed) {
      const MPI_Datatype kept = dt::pool_take(k);
      if (kept != MPI_DATATYPE_NULL) {
        *out = kept;
        return MPI_SUCCESS;
      }
    }
  }
  const int rc = host();
  if (rc != MPI_SUCCESS) return rc;
  dt::pool_born(*out);
  if (!dt::memo_in_use()) return rc;
  if (keyed < 0) keyed = key(&k);
  if (keyed) dt::adopt_decoding(*out, k);
  return rc;
}

}  // namespace

OSPREY_EXPORT int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_contiguous(count, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::contiguous(count, old, k); });
}

OSPREY_EXPORT int MPI_Type_vector(int count, int len, int stride, MPI_Datatype old,
                                  MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_vector(count, len, stride, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::vector(count, len, stride, old, k); });
}

OSPREY_EXPORT int MPI_Type_create_hvector(int count, int len, MPI_Aint stride, MPI_Datatype old,
                                          MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_hvector(count, len, stride, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::hvector(count, len, stride, old, k); });
}

OSPREY_EXPORT int MPI_Type_indexed(int count, const int lens[], const int displs[],
                                   MPI_Datatype old, MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_indexed(count, lens, displs, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::indexed(count, lens, displs, old, k); });
}

OSPREY_EXPORT int MPI_Type_create_hindexed(int count, const int lens[], const MPI_Aint displs[],
                                           MPI_Datatype old, MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_hindexed(count, lens, displs, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::hindexed(count, lens, displs, old, k); });
}

OSPREY_EXPORT int MPI_Type_create_indexed_block(int count, int len, const int displs[],
                                                MPI_Datatype old, MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_indexed_block(count, len, displs, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::indexed_block(count, len, displs, old, k); });
}

OSPREY_EXPORT int MPI_Type_create_hindexed_block(int count, int len, const MPI_Aint displs[],
                                                 MPI_Datatype old, MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_hindexed_block(count, len, displs, old, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::hindexed_block(count, len, displs, old, k); });
}

OSPREY_EXPORT int MPI_Type_create_struct(int count, const int lens[], const MPI_Aint displs[],
                                         const MPI_Datatype types[], MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_struct(count, lens, displs, types, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::structure(count, lens, displs, types, k); });
}

OSPREY_EXPORT int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                                           const int starts[], int order, MPI_Datatype old,
                                           MPI_Datatype* out) {
  return construct(
      out,
      [&] { return PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, old, out); },
      [&](dt::ConstructorKey* k) {
        return dt::keys::subarray(ndims, sizes, subsizes, starts, order, old, k);
      });
}

OSPREY_EXPORT int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                                          MPI_Datatype* out) {
  return construct(
      out, [&] { return PMPI_Type_create_resized(old, lb, extent, out); },
      [&](dt::ConstructorKey* k) { return dt::keys::resized(old, lb, extent, k); });
}
