// Target layouts on the wire (packet.h): one element's strided data blocks as decoded at the
// origin (so a vector travels as one record, whatever its run count), decoded and checked at
// the target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/type_info.h"

namespace osprey::am {

// Appends the wire form of t's blocks to out.
void encode_layout(const dt::TypeInfo& t, std::vector<char>& out);

// The blocks of a wire layout of n bytes, which cover `data_bytes` (one element of the
// request's datatype) in all; false (and nothing useful) if it is malformed or covers more:
// a corrupt count must not make the target allocate without bound.
bool decode_layout(const char* p, std::size_t n, uint64_t data_bytes,
                   std::vector<dt::Block>& blocks);

}  // namespace osprey::am
