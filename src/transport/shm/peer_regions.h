// Node peers' attached regions of a dynamic window that are shared memory files, mapped here
// as operations first reach them. A mapping is found by the region's id (unique in its owner,
// never reused), so a region detached and another attached at the same address never share
// one. Mappings of regions their owner detached are dropped whenever a new one is made (each
// holds its whole file): a correct program has no operation in flight toward detached memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
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

  // threads: other threads of this process may read the hints while mappings are dropped.
  void init(uint32_t nranks, bool threads);

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
  std::vector<std::vector<std::unique_ptr<Mapping>>> maps_;  // by node-local rank
  // Per rank, the mapping found last: found again without the lock. Where other threads may
  // be reading a hint, dropped mappings are kept (unmapped) until destruction, since a hint
  // may still point at one; a process without MPI_THREAD_MULTIPLE frees them at once.
  std::unique_ptr<std::atomic<const Mapping*>[]> last_;
  bool threads_ = true;
  std::vector<std::unique_ptr<Mapping>> dropped_;
};

}  // namespace osprey::shm
