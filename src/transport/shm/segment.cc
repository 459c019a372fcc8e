#include "transport/shm/segment.h"

#include <fcntl.h>
#include <mpi.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "util/log.h"

namespace osprey::shm {
namespace {

constexpr int kNone = 0, kPosix = 1, kMemfd = 2;

std::atomic<unsigned> counter{0};

bool dev_shm_has_room(std::size_t bytes) {
  struct statvfs s;
  if (statvfs("/dev/shm", &s) != 0) return false;
  // Keep a margin: other segments of this job may be growing at the same time.
  return static_cast<unsigned long long>(s.f_bavail) * s.f_frsize >= bytes + bytes / 8 + (1 << 20);
}

// Memory the kernel could still give (RAM it can free, and swap); true when it cannot tell.
bool memory_has_room(std::size_t bytes) {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return true;
  unsigned long long avail_kb = 0, swap_kb = 0, v = 0;
  char key[64];
  bool found = false;
  while (std::fscanf(f, "%63s %llu kB", key, &v) == 2) {
    if (std::strcmp(key, "MemAvailable:") == 0) {
      avail_kb = v;
      found = true;
    }
    if (std::strcmp(key, "SwapFree:") == 0) swap_kb = v;
  }
  std::fclose(f);
  return !found || (avail_kb + swap_kb) * 1024 >= bytes;
}

// Sizes the file and takes its pages now: a file that is only truncated to size gets its pages
// at first touch, and a full tmpfs then kills the process with SIGBUS instead of failing here.
bool size_and_reserve(int fd, std::size_t bytes) {
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) return false;
  return bytes == 0 || posix_fallocate(fd, 0, static_cast<off_t>(bytes)) == 0;
}

char* map_fd(int fd, std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

}  // namespace

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    base_ = o.base_;
    size_ = o.size_;
    o.base_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

void Segment::release() {
  if (base_) munmap(base_, size_);
  base_ = nullptr;
  size_ = 0;
}

Status Segment::create(std::size_t bytes, Segment& out, SegmentName& name) {
  out.release();
  name = SegmentName{};
  if (dev_shm_has_room(bytes)) {
    std::snprintf(name.path, sizeof name.path, "/osprey-%d-%u", static_cast<int>(getpid()),
                  counter.fetch_add(1));
    int fd = shm_open(name.path, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0) {
      char* p = nullptr;
      if (size_and_reserve(fd, bytes)) p = map_fd(fd, bytes);
      close(fd);
      if (p) {
        name.backing = kPosix;
        out.base_ = p;
        out.size_ = bytes;
        return kOk;
      }
      shm_unlink(name.path);
    }
  }
  Status s = create_file(bytes, out, name);
  if (s.ok()) OSPREY_LOG(1, "segment of %zu bytes in a memfd (/dev/shm too small)", bytes);
  return s.ok() ? s : Err(MPI_ERR_NO_MEM, "osprey: cannot create node-shared window memory");
}

Status Segment::create_file(std::size_t bytes, Segment& out, SegmentName& name) {
  out.release();
  name = SegmentName{};
  if (!memory_has_room(bytes))
    return Err(MPI_ERR_NO_MEM, "osprey: not enough memory for the window");
  int fd = memfd_create("osprey-window", MFD_CLOEXEC);
  if (fd >= 0) {
    char* p = nullptr;
    if (size_and_reserve(fd, bytes)) p = map_fd(fd, bytes);
    if (p) {
      std::snprintf(name.path, sizeof name.path, "/proc/%d/fd/%d", static_cast<int>(getpid()), fd);
      name.backing = kMemfd;
      name.owner_fd = fd;  // peers open it through /proc until unlink() closes it
      out.base_ = p;
      out.size_ = bytes;
      return kOk;
    }
    close(fd);
  }
  return Err(MPI_ERR_NO_MEM, "osprey: cannot create node-shared memory");
}

SegmentName Segment::file_name(int pid, int fd) {
  SegmentName n;
  n.backing = kMemfd;
  std::snprintf(n.path, sizeof n.path, "/proc/%d/fd/%d", pid, fd);
  return n;
}

Status Segment::attach(const SegmentName& name, std::size_t bytes, Segment& out) {
  out.release();
  int fd = -1;
  if (name.backing == kPosix) fd = shm_open(name.path, O_RDWR, 0);
  if (name.backing == kMemfd) fd = open(name.path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return Err(MPI_ERR_NO_MEM, "osprey: cannot open a node peer's window memory");
  char* p = map_fd(fd, bytes);
  close(fd);
  if (!p) return Err(MPI_ERR_NO_MEM, "osprey: cannot map a node peer's window memory");
  out.base_ = p;
  out.size_ = bytes;
  return kOk;
}

void Segment::unlink(SegmentName& name) {
  if (name.backing == kPosix) shm_unlink(name.path);
  if (name.owner_fd >= 0) close(name.owner_fd);
  name.backing = kNone;
  name.owner_fd = -1;
}

Status Segment::create_private(std::size_t bytes, Segment& out) {
  out.release();
  if (!memory_has_room(bytes))
    return Err(MPI_ERR_NO_MEM, "osprey: not enough memory for the window");
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return Err(MPI_ERR_NO_MEM, "osprey: cannot map window memory");
  out.base_ = static_cast<char*>(p);
  out.size_ = bytes;
  return kOk;
}

}  // namespace osprey::shm
