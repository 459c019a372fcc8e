// Whether cross-memory attach works between processes here, found by trying it the way osprey
// does (shm::cma): one process allows attaching, a sibling reads and writes its memory.
#pragma once

#include <string>

namespace osprey::info {

struct CmaVerdict {
  bool allowed = false;
  std::string detail;  // what was tried and, on failure, what the kernel said
};

CmaVerdict probe_cma();

// /proc/sys/kernel/yama/ptrace_scope, or -1 without Yama.
int ptrace_scope();

}  // namespace osprey::info
