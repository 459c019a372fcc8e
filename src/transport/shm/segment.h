// A memory segment mapped by every rank of a node: POSIX shared memory, or a memfd reached
// through /proc when /dev/shm is too small. The owner unlinks the name as soon as every rank
// has mapped it, so a crash leaves nothing behind.
#pragma once

#include <cstddef>

#include "util/status.h"

namespace osprey::shm {

// How node peers open a segment the owner created.
struct SegmentName {
  int backing = 0;  // 0 none, 1 POSIX shm, 2 memfd
  int owner_fd = -1;
  char path[112] = {};
};

class Segment {
 public:
  Segment() = default;
  ~Segment() { release(); }
  Segment(Segment&& o) noexcept { *this = static_cast<Segment&&>(o); }
  Segment& operator=(Segment&& o) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  // Owner side: creates and maps `bytes` of zeroed shared memory.
  static Status create(std::size_t bytes, Segment& out, SegmentName& name);
  // Owner side: a segment in a memory file without a name, which peers open through /proc
  // for as long as the owner keeps it (until unlink()): nothing is left behind by a crash.
  static Status create_file(std::size_t bytes, Segment& out, SegmentName& name);
  // The name of a create_file() segment, from the owner's pid and file descriptor.
  static SegmentName file_name(int pid, int fd);
  // Peer side: maps a segment the owner created.
  static Status attach(const SegmentName& name, std::size_t bytes, Segment& out);
  // Owner side, once every peer attached: removes the name.
  static void unlink(SegmentName& name);
  // Memory for a rank that has no node peers: no name at all.
  static Status create_private(std::size_t bytes, Segment& out);

  char* base() const { return base_; }
  std::size_t size() const { return size_; }
  void release();

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace osprey::shm
