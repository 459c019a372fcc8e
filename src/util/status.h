// Result of an engine call: an MPI error class plus a fixed sentence naming the cause.
#pragma once

namespace osprey {

struct Status {
  int cls = 0;  // MPI_SUCCESS
  const char* msg = nullptr;

  constexpr bool ok() const { return cls == 0; }
};

constexpr Status kOk{};

constexpr Status Err(int cls, const char* msg) {
  return Status{cls, msg};
}

}  // namespace osprey

// Returns early from the enclosing function when `expr` yields an error.
#define OSPREY_TRY(expr)                   \
  do {                                     \
    ::osprey::Status osprey_s_ = (expr);   \
    if (!osprey_s_.ok()) return osprey_s_; \
  } while (0)
