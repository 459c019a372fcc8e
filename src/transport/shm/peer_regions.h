// Node peers' attached regions of a dynamic window that are shared memory files, mapped here
// as operations first reach them. A mapping is found by the region's id (unique in its owner,
// never reused), so a region detached and another attached at the same address never share
// one. Mappings of regions their owner detached are dropped once a rank has many: a correct
// program has no operation in flight toward detached memory.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "transport/shm/attach_table.h"
#include "util/status.h"

namespace osprey::shm {

class PeerRegions {
 public:
  PeerRegions() = default;
  PeerRegions(const PeerRegions&) = delete;
  PeerRegions& operator=(const PeerRegions&) = delete;
  ~PeerRegions();

  void init(uint32_t nranks) { maps_.resize(nranks); }

  // Where the file of node-local rank `local`'s shared region r (owner process pid) starts
  // here, mapping it first if needed; an error if it cannot be mapped.
  Status map(AttachTables& tables, uint32_t local, int pid, const AttachedRegion& r, char** at);

 private:
  struct Mapping {
    uint64_t id;
    char* addr;
    uint64_t len;
  };
  void drop_detached(AttachTables& tables, uint32_t local);

  std::mutex mu_;
  std::vector<std::vector<Mapping>> maps_;  // by node-local rank
};

}  // namespace osprey::shm
