#include "transport/shm/address_space.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace osprey::shm::address_space {
namespace {

std::string read_proc(const char* path) {
  std::string out;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return out;
}

struct Mapping {
  uint64_t start = 0, end = 0, inode = 0;
  char perms[5] = {};
  char name[32] = {};  // enough to tell "[heap]" and an empty name from everything else
};

bool parse(const char* line, Mapping* m) {
  unsigned long long start, end, offset, inode;
  unsigned major, minor;
  int name_at = 0;
  if (std::sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, m->perms, &offset, &major,
                  &minor, &inode, &name_at) < 7)
    return false;
  m->start = start;
  m->end = end;
  m->inode = inode;
  const char* name = line + name_at;
  const std::size_t len = std::strcspn(name, "\n");
  const std::size_t keep = len < sizeof m->name - 1 ? len : sizeof m->name - 1;
  std::memcpy(m->name, name, keep);
  m->name[keep] = '\0';
  return true;
}

// Calls f(mapping) for each mapping overlapping [lo, hi) in address order; false if a page of
// the range is unmapped or f refuses one.
template <typename F>
bool each_mapping(uint64_t lo, uint64_t hi, F f) {
  const std::string maps = read_proc("/proc/self/maps");
  uint64_t covered = lo;
  for (std::size_t at = 0; at < maps.size() && covered < hi;) {
    const std::size_t eol = maps.find('\n', at);
    const std::string line = maps.substr(at, eol == std::string::npos ? eol : eol - at);
    at = eol == std::string::npos ? maps.size() : eol + 1;
    Mapping m;
    if (!parse(line.c_str(), &m) || m.end <= covered) continue;
    if (m.start > covered || !f(m)) return false;
    covered = m.end;
  }
  return covered >= hi;
}

}  // namespace

bool private_anonymous(uint64_t lo, uint64_t hi, uint64_t stack) {
  return each_mapping(lo, hi, [&](const Mapping& m) {
    const bool anonymous = m.inode == 0 && (m.name[0] == '\0' || !std::strcmp(m.name, "[heap]"));
    const bool holds_stack = stack >= m.start && stack < m.end;
    return anonymous && !std::strcmp(m.perms, "rw-p") && !holds_stack;
  });
}

bool maps_file(uint64_t lo, uint64_t hi, uint64_t inode) {
  return each_mapping(lo, hi, [&](const Mapping& m) { return m.inode == inode; });
}

bool mapped(uint64_t lo, uint64_t hi) {
  return each_mapping(lo, hi, [](const Mapping&) { return true; });
}

}  // namespace osprey::shm::address_space
