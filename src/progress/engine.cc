#include "progress/engine.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace osprey::progress {
namespace {

constexpr int kMaxPollers = 8;
std::atomic<Poller> pollers[kMaxPollers];
std::atomic<int> npollers{0};
std::atomic<Poller> mail_check{nullptr};

// Engine locks and sections this thread is inside. initial-exec: a plain load, no call, on every
// lock and poll (the library is preloaded or linked, never dlopen()ed late).
thread_local int engine_depth __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace

std::atomic<bool> concurrent_threads{true};

void set_concurrent(bool on) {
  concurrent_threads.store(on, std::memory_order_relaxed);
}

void add_poller(Poller p) {
  for (int i = 0; i < npollers.load(std::memory_order_acquire); ++i)
    if (pollers[i].load(std::memory_order_relaxed) == p) return;
  const int i = npollers.load(std::memory_order_relaxed);
  if (i == kMaxPollers) {
    std::fprintf(stderr, "osprey: internal error: too many progress pollers\n");
    std::abort();
  }
  pollers[i].store(p, std::memory_order_relaxed);
  npollers.store(i + 1, std::memory_order_release);
}

void set_mail_check(Poller p) {
  mail_check.store(p, std::memory_order_release);
}

bool has_pollers() {
  return npollers.load(std::memory_order_relaxed) > 0;
}

bool poll() {
  if (engine_depth > 0) return false;
  const Poller mail = mail_check.load(std::memory_order_acquire);
  bool did = mail && mail();
  const int n = npollers.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    did |= pollers[i].load(std::memory_order_relaxed)();
  return did;
}

EngineSection::EngineSection() {
  ++engine_depth;
}

EngineSection::~EngineSection() {
  --engine_depth;
}

EngineLock::EngineLock(EngineMutex& m) : lk_(m) {
  ++engine_depth;
}

EngineLock::~EngineLock() {
  if (lk_.owns_lock()) --engine_depth;
}

void EngineLock::lock() {
  lk_.lock();
  ++engine_depth;
}

void EngineLock::unlock() {
  --engine_depth;
  lk_.unlock();
}

}  // namespace osprey::progress
