#include "transport/shm/peer_regions.h"

#include <mpi.h>
#include <sys/mman.h>

#include "transport/shm/user_memory.h"

namespace osprey::shm {
namespace {

// Mappings per rank before those of detached regions are looked for and dropped.
constexpr std::size_t kDropAt = 64;

}  // namespace

PeerRegions::~PeerRegions() {
  for (auto& per : maps_)
    for (const Mapping& m : per)
      munmap(m.addr, m.len);
}

void PeerRegions::drop_detached(AttachTables& tables, uint32_t local) {
  std::vector<Mapping>& per = maps_[local];
  for (std::size_t i = 0; i < per.size();) {
    bool held = true;
    if (tables.holds(local, per[i].id, &held).ok() && !held) {
      munmap(per[i].addr, per[i].len);
      per[i] = per.back();
      per.pop_back();
    } else {
      ++i;
    }
  }
}

Status PeerRegions::map(AttachTables& tables, uint32_t local, int pid, const AttachedRegion& r,
                        char** at) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<Mapping>& per = maps_[local];
  for (const Mapping& m : per)
    if (m.id == r.id) {
      *at = m.addr;
      return kOk;
    }
  if (per.size() >= kDropAt) drop_detached(tables, local);
  void* p = user_memory::map_peer(pid, r.fd, static_cast<std::size_t>(r.file_len));
  // The owner may have detached the region and reused the descriptor meanwhile: the mapping
  // counts only if the region is still attached after it was made.
  bool held = false;
  if (p && (!tables.holds(local, r.id, &held).ok() || !held)) {
    munmap(p, r.file_len);
    return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
  }
  if (!p) return Err(MPI_ERR_RMA_RANGE, "osprey: cannot map a node peer's attached memory");
  per.push_back({r.id, static_cast<char*>(p), r.file_len});
  *at = static_cast<char*>(p);
  return kOk;
}

}  // namespace osprey::shm
