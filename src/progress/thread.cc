#include "progress/thread.h"

#include <mpi.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "progress/engine.h"
#include "util/log.h"

namespace osprey::progress {
namespace {

std::mutex mu;
std::thread* worker = nullptr;
std::atomic<bool> stop{false};

void run() {
  long idle_ns = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    if (poll()) {
      idle_ns = 0;
      continue;
    }
    // Idle: sleep a little longer each time (up to 100 us) to leave the core to the
    // application; any work found resets it.
    idle_ns = idle_ns < 100000 ? idle_ns + 2000 : idle_ns;
    timespec ts{0, idle_ns};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace

void start_thread() {
  std::lock_guard<std::mutex> g(mu);
  if (worker) return;
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr,
                 "osprey: OSPREY_PROGRESS_THREAD=1 needs MPI_Init_thread(MPI_THREAD_MULTIPLE); "
                 "running without a progress thread\n");
    return;
  }
  stop = false;
  worker = new std::thread(run);
  OSPREY_LOG(1, "progress thread started");
}

void stop_thread() {
  std::lock_guard<std::mutex> g(mu);
  if (!worker) return;
  stop = true;
  worker->join();
  delete worker;
  worker = nullptr;
}

}  // namespace osprey::progress
