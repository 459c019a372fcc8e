#include "transport/shm/user_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>

namespace osprey::shm::user_memory {
namespace {

// Each allocation holds a file descriptor; past this many the host allocates, so that a
// program that allocates in a loop cannot run out of descriptors because of osprey.
constexpr std::size_t kMaxLive = 256;

struct Registry {
  std::mutex mu;
  std::map<uint64_t, Region> by_base;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: Free_mem may run during exit
  return *r;
}

}  // namespace

void* alloc(std::size_t n) {
  if (n == 0) return nullptr;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (n > SIZE_MAX - page) return nullptr;
  const std::size_t len = (n + page - 1) / page * page;
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.by_base.size() >= kMaxLive) return nullptr;
  const int fd = memfd_create("osprey-alloc-mem", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  void* p = MAP_FAILED;
  // fallocate reserves the pages now: a full tmpfs fails here instead of raising SIGBUS at the
  // first touch.
  if (ftruncate(fd, static_cast<off_t>(len)) == 0 &&
      posix_fallocate(fd, 0, static_cast<off_t>(len)) == 0)
    p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return nullptr;
  }
  r.by_base[reinterpret_cast<uint64_t>(p)] = {fd, reinterpret_cast<uint64_t>(p), len};
  return p;
}

bool free(void* p) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_base.find(reinterpret_cast<uint64_t>(p));
  if (it == r.by_base.end()) return false;
  munmap(p, it->second.len);
  close(it->second.fd);
  r.by_base.erase(it);
  return true;
}

bool find(const void* p, std::size_t n, Region* out) {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_base.upper_bound(a);
  if (it == r.by_base.begin()) return false;
  --it;
  const Region& reg = it->second;
  if (a < reg.base || a - reg.base > reg.len || n > reg.len - (a - reg.base)) return false;
  *out = reg;
  return true;
}

void* map_peer(int pid, int fd, std::size_t len) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
  const int f = open(path, O_RDWR | O_CLOEXEC);
  if (f < 0) return nullptr;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close(f);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace osprey::shm::user_memory
