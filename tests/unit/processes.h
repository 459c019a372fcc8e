// Unit tests of node-level mechanisms run them between real processes: a shared anonymous
// mapping, and children forked over it.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>
#include <vector>

namespace osprey::test {

// A T built in memory that processes forked afterwards share (freed by unmap_shared).
template <class T>
T* map_shared() {
  void* mem = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return mem == MAP_FAILED ? nullptr : new (mem) T{};
}

template <class T>
void unmap_shared(T* t) {
  munmap(t, sizeof(T));
}

// Runs body(p) in `procs` forked children, p = 0 .. procs - 1; a child that returns from body
// exits 0, and every child must exit 0.
template <class Body>
void run_in_processes(int procs, Body&& body) {
  std::vector<pid_t> kids;
  for (int p = 0; p < procs; ++p) {
    const pid_t k = fork();
    if (k == 0) {
      body(p);
      _exit(0);
    }
    kids.push_back(k);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
}

}  // namespace osprey::test
