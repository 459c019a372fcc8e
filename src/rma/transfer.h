// Addresses of a target location, and the bytes of one put or get moved by cross-memory attach
// between origin memory and a node peer's private memory, for any pair of datatype layouts
// carrying the same bytes.
#pragma once

#include "datatype/type_info.h"
#include "rma/window.h"

namespace osprey::rma {

// `where`: byte offset from the target's displacement 0, or the absolute address (dynamic).
// to_target: origin -> target (put), else target -> origin (get).
Status cma_move(bool to_target, const TargetView& t, uint64_t where, MPI_Count tcount,
                const dt::TypeInfo& tt, const void* origin, MPI_Count ocount,
                const dt::TypeInfo& ot);

// The address of `where` in this process (memory mapped here).
// In integers: in a dynamic window's region file, `where` wraps below the file's start when
// the target type's lower bound is positive.
inline char* direct_address(const TargetView& t, uint64_t where) {
  return reinterpret_cast<char*>(t.dynamic ? where : reinterpret_cast<uint64_t>(t.base) + where);
}
// The address of `where` in the target process (a node peer's private memory).
inline uint64_t remote_address(const TargetView& t, uint64_t where) {
  return t.dynamic ? where : t.remote_base + where;
}

}  // namespace osprey::rma
