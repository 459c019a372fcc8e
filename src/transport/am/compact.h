// The short header of small requests (packet.h, CompactRequest): the sender rewrites a request
// into it when nothing is lost, the receiver expands it back before checking and dispatch.
#pragma once

#include <cstddef>
#include <vector>

#include "transport/am/buffer.h"
#include "transport/am/packet.h"

namespace osprey::am {

// Rewrites the request at the front of `msg` (a full Request, then `msg.size() - sizeof(Request)`
// bytes that follow it) into the short form if it fits one; otherwise leaves it as it is.
void compact_request(Buffer& msg);

// Whether `msg` starts with a short header.
inline bool is_compact(const char* msg, std::size_t n) {
  return n >= 1 && (static_cast<unsigned char>(msg[0]) & kCompactBit);
}

// The full form of a short request of `n` bytes into `out` (header, then the same data);
// false if it is too short to hold one.
bool expand_request(const char* msg, std::size_t n, std::vector<char>& out);

}  // namespace osprey::am
