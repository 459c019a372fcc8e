#include "transport/shm/peer_regions.h"

#include <mpi.h>
#include <sys/mman.h>

#include "transport/shm/user_memory.h"

namespace osprey::shm {

void PeerRegions::init(uint32_t nranks, bool threads) {
  threads_ = threads;
  maps_.resize(nranks);
  last_ = std::make_unique<std::atomic<const Mapping*>[]>(nranks);
}

PeerRegions::~PeerRegions() {
  for (auto& per : maps_)
    for (const auto& m : per)
      munmap(m->addr, m->len);
}

void PeerRegions::drop_detached(AttachTables& tables, uint32_t local) {
  std::vector<std::unique_ptr<Mapping>>& per = maps_[local];
  for (std::size_t i = 0; i < per.size();) {
    bool held = true;
    if (tables.holds(local, per[i]->id, &held).ok() && !held) {
      munmap(per[i]->addr, per[i]->len);
      if (last_[local].load(std::memory_order_relaxed) == per[i].get())
        last_[local].store(nullptr, std::memory_order_relaxed);
      if (threads_) dropped_.push_back(std::move(per[i]));
      per[i] = std::move(per.back());
      per.pop_back();
    } else {
      ++i;
    }
  }
}

Status PeerRegions::map(AttachTables& tables, uint32_t local, int pid, const AttachedRegion& r,
                        char** at) {
  const Mapping* hint = last_[local].load(std::memory_order_acquire);
  if (hint && hint->id == r.id) {
    *at = hint->addr;
    return kOk;
  }
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::unique_ptr<Mapping>>& per = maps_[local];
  for (const auto& m : per)
    if (m->id == r.id) {
      last_[local].store(m.get(), std::memory_order_release);
      *at = m->addr;
      return kOk;
    }
  drop_detached(tables, local);
  void* p = user_memory::map_peer(pid, r.fd, static_cast<std::size_t>(r.file_len));
  // The owner may have detached the region and reused the descriptor meanwhile: the mapping
  // counts only if the region is still attached after it was made.
  bool held = false;
  if (p && (!tables.holds(local, r.id, &held).ok() || !held)) {
    munmap(p, r.file_len);
    return Err(MPI_ERR_RMA_RANGE, "osprey: target address range is not attached");
  }
  if (!p) return Err(MPI_ERR_RMA_RANGE, "osprey: cannot map a node peer's attached memory");
  per.push_back(std::make_unique<Mapping>(Mapping{r.id, static_cast<char*>(p), r.file_len}));
  last_[local].store(per.back().get(), std::memory_order_release);
  *at = static_cast<char*>(p);
  return kOk;
}

}  // namespace osprey::shm
