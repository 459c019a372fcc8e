#include "transport/shm/user_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "transport/shm/address_space.h"

namespace osprey::shm::user_memory {
namespace {

// Each allocation holds a file descriptor; past this many the host allocates, so that a
// program that allocates in a loop cannot run out of descriptors because of osprey.
constexpr std::size_t kMaxLive = 256;

struct Entry {
  Region r;
  // Pages moved in place by share_in_place (else from alloc): windows over them, the file's
  // inode.
  bool moved = false;
  int users = 0;
  uint64_t inode = 0;
};

struct Registry {
  std::mutex mu;
  std::map<uint64_t, Entry> by_base;
  std::size_t moved = 0;  // entries of by_base from share_in_place (kMaxLive is alloc's)
  std::multiset<std::pair<uint64_t, uint64_t>> exposed;  // (base, end)

  bool holds_exposed(uint64_t lo, uint64_t hi) const {
    for (const auto& [base, end] : exposed)
      if (base < hi && end > lo) return true;
    return false;
  }
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
  if (r.by_base.size() - r.moved >= kMaxLive) return nullptr;
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
  Entry& e = r.by_base[reinterpret_cast<uint64_t>(p)];
  if (e.moved) --r.moved;  // pages the program unmapped under a live window (erroneous)
  e = Entry{{fd, reinterpret_cast<uint64_t>(p), len}};
  return p;
}

bool free(void* p) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_base.find(reinterpret_cast<uint64_t>(p));
  if (it == r.by_base.end() || it->second.moved) return false;
  munmap(p, it->second.r.len);
  close(it->second.r.fd);
  r.by_base.erase(it);
  return true;
}

namespace {

// End of [base, base + len), clamped where it would wrap.
uint64_t end_of(uint64_t base, uint64_t len) {
  return base + len < base ? UINT64_MAX : base + len;
}

std::size_t page_size() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Whether [a, a + n) is a large block of glibc's malloc to its last page: the block has its own
// mapping, whose first 16 bytes are its header (an offset of 0 and a size with the "mapped"
// bit), so no other object shares its pages, and the window reaches its last page (a window
// over less would share that page with the rest of the block, which other threads may write;
// past the window's end there is then at most malloc's slack). Reads the header, which
// sanitizers count as outside the block.
__attribute__((no_sanitize("address", "hwaddress"))) bool malloc_mapped_block(uint64_t a,
                                                                              std::size_t n,
                                                                              uint64_t lo,
                                                                              uint64_t hi) {
  constexpr uint64_t kHeader = 2 * sizeof(std::size_t), kMappedBit = 2;
  if (a - lo != kHeader) return false;
  std::size_t prev, size;
  std::memcpy(&prev, reinterpret_cast<const void*>(lo), sizeof prev);
  std::memcpy(&size, reinterpret_cast<const void*>(lo + sizeof prev), sizeof size);
  const uint64_t block = size & ~uint64_t{7};
  return prev == 0 && (size & kMappedBit) && block % page_size() == 0 && block >= n + kHeader &&
         lo + block == hi;
}

// Copies the pages [lo, lo + len) to `to`. Under AddressSanitizer they hold its redzones,
// which its memcpy refuses to read.
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize("address"), optimize("no-tree-loop-distribute-patterns"))) void
copy_pages(char* to, uint64_t lo, std::size_t len) {
  const char* from = reinterpret_cast<const char*>(lo);
  for (std::size_t i = 0; i < len; ++i)
    to[i] = from[i];
}
#else
void copy_pages(char* to, uint64_t lo, std::size_t len) {
  std::memcpy(to, reinterpret_cast<const char*>(lo), len);
}
#endif

// Maps `fd` over [lo, lo + len).
bool map_file_at(uint64_t lo, std::size_t len, int fd) {
  void* at = reinterpret_cast<void*>(lo);
  return mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == at;
}

// Puts a copy of the private pages [lo, lo + len) into `fd` and maps it there instead. mmap, not
// mremap: libraries that watch the address space for their memory registration caches
// (UCX's and libfabric's hooks) see it, and UCX 1.13's hooked mremap drops MREMAP_FIXED's
// target address (openucx/ucx issue 8820).
bool pages_to_file(uint64_t lo, std::size_t len, int fd) {
  void* t = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (t == MAP_FAILED) return false;
  copy_pages(static_cast<char*>(t), lo, len);
  bool ok = map_file_at(lo, len, fd);
  // Failed after the kernel had unmapped the old pages: the file holds their contents.
  if (!ok && !address_space::mapped(lo, lo + len)) ok = map_file_at(lo, len, fd);
  munmap(t, len);
  return ok;
}

// The reverse: private pages with the same contents, swapped in at once by the mremap system
// call itself (see above). MADV_DONTNEED first keeps the contents (they are in the file) and
// tells those hooks that the pages change. If the swap fails after the kernel unmapped the
// file's pages, the file goes back (shared, but with the contents).
void pages_to_private(uint64_t lo, std::size_t len, int fd) {
  void* at = reinterpret_cast<void*>(lo);
  madvise(at, len, MADV_DONTNEED);
  void* t = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t == MAP_FAILED) return;
  copy_pages(static_cast<char*>(t), lo, len);
  if (reinterpret_cast<void*>(
          syscall(SYS_mremap, t, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, at)) == at)
    return;
  munmap(t, len);
  if (!address_space::mapped(lo, lo + len)) map_file_at(lo, len, fd);
}

}  // namespace

bool share_in_place(const void* p, std::size_t n, std::size_t max, Region* out, bool* moved) {
  *moved = false;
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  const std::size_t page = page_size();
  if (n == 0 || n > UINT64_MAX - page || a > UINT64_MAX - page - n) return false;
  const uint64_t lo = a / page * page, hi = (a + n + page - 1) / page * page;
  const std::size_t len = static_cast<std::size_t>(hi - lo);
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_base.upper_bound(a);
  if (it != r.by_base.begin()) {
    Entry& e = std::prev(it)->second;
    if (a + n <= e.r.base + e.r.len) {  // inside an allocation or an earlier move
      *out = e.r;
      if (e.moved) ++e.users;
      *moved = e.moved;
      return true;
    }
    if (e.r.base + e.r.len > lo) return false;
  }
  if ((it != r.by_base.end() && it->first < hi) || len > max || r.moved >= kMaxLive ||
      r.holds_exposed(lo, hi))
    return false;
  // Bytes on the first or last page outside the window may belong to other objects, which
  // another thread, a signal handler or a peer's pending transfer could write between the copy
  // and the swap; that write would be lost. So only pages that hold nothing else move. Checked
  // before /proc/self/maps is read: most small blocks (attached one by one) fail here.
  if (!(a == lo && a + n == hi) && !malloc_mapped_block(a, n, lo, hi)) return false;
  const int on_stack = 0;
  if (!address_space::private_anonymous(lo, hi, reinterpret_cast<uint64_t>(&on_stack)))
    return false;
  const int fd = memfd_create("osprey-win-create", MFD_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (ftruncate(fd, static_cast<off_t>(len)) != 0 ||
      posix_fallocate(fd, 0, static_cast<off_t>(len)) != 0 || fstat(fd, &st) != 0 ||
      !pages_to_file(lo, len, fd)) {
    close(fd);
    return false;
  }
  Entry& e = r.by_base[lo];
  e = {{fd, lo, len}, true, 1, static_cast<uint64_t>(st.st_ino)};
  ++r.moved;
  *out = e.r;
  *moved = true;
  return true;
}

void release_in_place(uint64_t base) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_base.find(base);
  if (it == r.by_base.end() || !it->second.moved || --it->second.users > 0) return;
  const Entry e = it->second;
  r.by_base.erase(it);
  --r.moved;
  // Unless the program unmapped them meanwhile (erroneous, but not ours to crash on).
  if (address_space::maps_file(e.r.base, e.r.base + e.r.len, e.inode) &&
      !r.holds_exposed(e.r.base, e.r.base + e.r.len))
    pages_to_private(e.r.base, static_cast<std::size_t>(e.r.len), e.r.fd);
  close(e.r.fd);
}

void expose(uint64_t base, uint64_t len) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.exposed.insert({base, end_of(base, len)});
}

void unexpose(uint64_t base, uint64_t len) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.exposed.find({base, end_of(base, len)});
  if (it != r.exposed.end()) r.exposed.erase(it);
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
