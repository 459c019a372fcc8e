// The attach tables of a dynamic window's node-local ranks: each rank's attached regions,
// sorted by address, in a shared memory file of its own that doubles when it fills (so there
// is no limit on the number of regions), announced through a header in the window segment.
// Node peers map a rank's table to check an access before touching its memory, and read it
// under the header's sequence lock; adjacent regions count as one. A region whose memory is a
// shared memory file (moved in place at attach, or from MPI_Alloc_mem) says which, so that
// node peers map it and reach it with loads, stores and CPU atomics.
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
  std::atomic<int32_t> fd;      // the shared file's descriptor in the owner, -1: private memory
  std::atomic<uint32_t> moved;  // the owner moved the pages (user_memory::release_in_place)
  std::atomic<uint64_t> file_base, file_len;  // where the file is mapped in the owner
  std::atomic<uint64_t> id;                   // unique in the owner, for peers' mappings
};

// One attached region, as read from a table.
struct AttachedRegion {
  uint64_t base = 0, len = 0;
  int32_t fd = -1;
  bool moved = false;
  uint64_t file_base = 0, file_len = 0, id = 0;
  bool shared() const { return fd >= 0; }
};

// Where an access lies in a rank's attached memory.
struct AttachLookup {
  bool inside = false;  // within attached memory
  bool single = false;  // within one region, `region`
  bool shared = false;  // some region it touches is shared
  AttachedRegion region;
  // The table's sequence word the answer holds under (AttachTables::seq); a stable word is
  // even and never reaches UINT64_MAX.
  uint64_t seq = UINT64_MAX;
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
  Status insert(const AttachedRegion& r);
  // Whether a region starts at `base`; if so it is removed and *out is what it was.
  bool erase(uint64_t base, AttachedRegion* out);
  // This rank's regions still attached.
  std::vector<AttachedRegion> own_regions();
  // Whether a region starts at this address, that neighbours or overlaps nothing attached.
  bool alone(uint64_t base, uint64_t len);

  // Any node-local rank's table: where [lo, hi) lies.
  Status find(uint32_t local, uint64_t lo, uint64_t hi, AttachLookup* out);
  // Rank local's sequence word now: while it is what a lookup's answer came with, the rank
  // has attached and detached nothing since.
  uint64_t seq(uint32_t local) const { return headers_[local].seq.load(std::memory_order_acquire); }
  // Whether the rank still has the region with this id attached.
  Status holds(uint32_t local, uint64_t id, bool* held);

 private:
  // One mapping of some rank's table file, kept until the window goes (a reader may still be
  // looking at it when the table moves).
  struct Mapping {
    uint32_t generation = 0;
    uint32_t capacity = 0;
    const AttachEntry* entries = nullptr;
    Segment seg;
  };
  // A rank's last lookup that fell inside one region: while the rank's sequence word stays
  // where it was then (every attach and detach moves it), an access inside that region is
  // answered without reading the table. A sequence lock of its own, since threads may look
  // up at once; a writer that finds it taken leaves it.
  struct alignas(64) Hint {  // one cache line each: threads look up different ranks at once
    std::atomic<uint32_t> version{0};       // odd while written
    std::atomic<uint64_t> seq{UINT64_MAX};  // the table's sequence word it was read under
    AttachEntry region{};
  };
  bool hinted(uint32_t local, uint64_t lo, uint64_t hi, AttachLookup* out) const;
  void keep_hint(uint32_t local, uint64_t seq, const AttachedRegion& r);

  Status remap(uint32_t local, uint64_t seq);
  // Runs read(entries, n) under rank local's sequence lock until it reads a stable table;
  // *seq: the sequence word that table was read under.
  template <class Read>
  Status read_table(uint32_t local, Read read, uint64_t* seq = nullptr);
  Status grow(uint32_t capacity);

  AttachTableHeader* headers_ = nullptr;
  uint32_t me_ = 0;
  std::vector<std::atomic<const Mapping*>> current_;  // per rank, the newest mapping seen
  std::unique_ptr<Hint[]> hints_;                     // per rank
  std::vector<std::unique_ptr<Mapping>> mappings_;    // every mapping, until destruction
  std::mutex map_mu_;                                 // guards mappings_ and remapping
  // Owner side.
  std::mutex write_mu_;                 // attach and detach from several threads
  std::vector<SegmentName> own_files_;  // closed at destruction
  AttachEntry* own_ = nullptr;
  uint32_t own_capacity_ = 0;
};

}  // namespace osprey::shm
