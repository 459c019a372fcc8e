#include "cma_probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "transport/shm/cma.h"

namespace osprey::info {
namespace {

// Lives at the same address in both children (they are forks of one image), as the probe word
// osprey's ranks exchange does.
volatile std::uint64_t probe_word = 0x6f73707265790001;

// Exit codes of the prober beyond errno values.
constexpr int kWriteFailed = 200, kReadBackWrong = 201;

[[noreturn]] void prober(pid_t target) {
  std::uint64_t seen = 0;
  const void* remote = const_cast<const std::uint64_t*>(&probe_word);
  if (!shm::cma::probe(target, remote, sizeof seen)) _exit(errno ? errno : EIO);
  const std::uint64_t mark = 0x6f73707265790002;
  if (!shm::cma::write(target, const_cast<void*>(remote), &mark, sizeof mark).ok())
    _exit(kWriteFailed);
  if (!shm::cma::read(target, remote, &seen, sizeof seen).ok() || seen != mark)
    _exit(kReadBackWrong);
  _exit(0);
}

}  // namespace

int ptrace_scope() {
  std::FILE* f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
  if (!f) return -1;
  int v = -1;
  if (std::fscanf(f, "%d", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

CmaVerdict probe_cma() {
  CmaVerdict v;
  // The target allows attaching (as every rank does in osprey's setup), says so, and waits
  // until the hold pipe closes.
  int ready[2], hold[2];
  if (pipe(ready) != 0) return {false, std::string("cannot try: pipe: ") + std::strerror(errno)};
  if (pipe(hold) != 0) {
    close(ready[0]);
    close(ready[1]);
    return {false, std::string("cannot try: pipe: ") + std::strerror(errno)};
  }
  std::fflush(nullptr);
  const pid_t target = fork();
  if (target == 0) {
    close(ready[0]);
    close(hold[1]);
    shm::cma::allow_attach();
    char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    while (read(hold[0], &c, 1) > 0) {
    }
    _exit(0);
  }
  close(ready[1]);
  close(hold[0]);
  char c = 0;
  const bool target_ready = target > 0 && read(ready[0], &c, 1) == 1;
  close(ready[0]);
  int status = -1;
  if (target_ready) {
    // A sibling, not the parent: under Yama scope 1 an ancestor may always attach, a
    // sibling only where the target allowed it, as between ranks.
    const pid_t p = fork();
    if (p == 0) prober(target);
    if (p > 0 && waitpid(p, &status, 0) != p) status = -1;
  }
  close(hold[1]);
  if (target > 0) waitpid(target, nullptr, 0);

  if (!target_ready) return {false, "cannot try: fork failed"};
  if (!WIFEXITED(status)) return {false, "the trial process did not finish"};
  switch (const int code = WEXITSTATUS(status)) {
    case 0:
      v.allowed = true;
      v.detail = "a process read and wrote a sibling's memory (process_vm_readv/writev)";
      break;
    case kWriteFailed:
      v.detail = "process_vm_readv works, process_vm_writev does not";
      break;
    case kReadBackWrong:
      v.detail = "process_vm_writev did not write what process_vm_readv read back";
      break;
    default:
      v.detail = std::string("process_vm_readv from a sibling failed: ") + std::strerror(code);
      if (code == EPERM)
        v.detail +=
            " (Yama ptrace_scope, a container's seccomp policy, or no"
            " CAP_SYS_PTRACE)";
      if (code == ENOSYS) v.detail += " (the kernel or a seccomp policy lacks the call)";
  }
  return v;
}

}  // namespace osprey::info
