// What a target checks of an arriving request before anything reads it: the message path must
// survive a corrupt or hostile packet with an error to its sender and no write.
#pragma once

#include <cstddef>

#include "transport/am/packet.h"

namespace osprey::am {

// 0 if the n bytes at msg form a well-formed request (known kind, flags, operation and element
// kind; inline layout, compare operand and payload inside the message; tags in the reply range;
// layout slot in range), else the MPI error class to report. What depends on the window (range,
// attached memory, the layout a slot holds) is checked when the request runs.
int check_request(const char* msg, std::size_t n);

// Whether a sender could be answered at `tag`: a tag of the reply range (0 means no reply).
bool reply_tag_ok(int tag);

}  // namespace osprey::am
