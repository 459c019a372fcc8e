// The attach tables of a dynamic window's node-local ranks: each rank's attached regions,
// sorted by address, in a shared memory file of its own that doubles when it fills (so there
// is no limit on the number of regions), announced through a header in the window segment.
// Node peers map a rank's table to check an access before touching its memory, and read it
// under the header's sequence lock; adjacent regions count as one.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "transport/shm/segment.h"
#include "transport/shm/window_segment.h"
#include "util/status.h"

namespace osprey::shm {

struct AttachEntry {
  std::atomic<uint64_t> base;
  std::atomic<uint64_t> len;
};

class AttachTables {
 public:
  AttachTables() = default;
  AttachTables(const AttachTables&) = delete;
  AttachTables& operator=(const AttachTables&) = delete;
  ~AttachTables();

  // headers: one per node-local rank, in the window segment; `me`: this rank's index.
  void init(AttachTableHeader* headers, uint32_t nranks, uint32_t me);

  // This rank's table. MPI_ERR_RMA_ATTACH if the region overlaps an attached one.
  Status insert(uint64_t base, uint64_t len);
  // False if no region starts at `base`; else *len is its length.
  bool erase(uint64_t base, uint64_t* len);
  // This rank's regions still attached, as (base, length).
  std::vector<std::pair<uint64_t, uint64_t>> own_regions();

  // Any node-local rank's table: whether [lo, hi) lies inside attached memory.
  Status covers(uint32_t local, uint64_t lo, uint64_t hi, bool* inside);

 private:
  // One mapping of some rank's table file, kept until the window goes (a reader may still be
  // looking at it when the table moves).
  struct Mapping {
    uint32_t generation = 0;
    uint32_t capacity = 0;
    const AttachEntry* entries = nullptr;
    Segment seg;
  };
  Status remap(uint32_t local, uint64_t seq);
  Status grow(uint32_t capacity);

  AttachTableHeader* headers_ = nullptr;
  uint32_t me_ = 0;
  std::vector<std::atomic<const Mapping*>> current_;  // per rank, the newest mapping seen
  std::vector<std::unique_ptr<Mapping>> mappings_;    // every mapping, until destruction
  std::mutex map_mu_;                                 // guards mappings_ and remapping
  // Owner side.
  std::mutex write_mu_;                 // attach and detach from several threads
  std::vector<SegmentName> own_files_;  // closed at destruction
  AttachEntry* own_ = nullptr;
  uint32_t own_capacity_ = 0;
};

}  // namespace osprey::shm
