// Settings read once from OSPREY_* environment variables (the README lists them all).
#pragma once

#include <cstddef>

namespace osprey {

enum class TransportMode { kAuto, kAm };

struct Config {
  TransportMode transport = TransportMode::kAuto;  // OSPREY_TRANSPORT=auto|am
  bool cma = true;                 // OSPREY_CMA: cross-memory attach to node peers' user memory
  bool shared_alloc_mem = true;    // OSPREY_SHARED_ALLOC_MEM: MPI_Alloc_mem from node-shared memory
  int debug = 0;                   // OSPREY_DEBUG: 1 = log setup decisions, 2 = log every call
  bool stats = false;              // OSPREY_STATS: message counts per endpoint at MPI_Finalize
  std::size_t lock_stripes = 256;  // OSPREY_LOCK_STRIPES: accumulate lock table size per window
  // Operation table (message path).
  std::size_t slots = 64;                 // OSPREY_SLOTS
  std::size_t op_pool_local = 256;        // OSPREY_OP_POOL_LOCAL
  std::size_t op_pool_global = 4096;      // OSPREY_OP_POOL_GLOBAL
  std::size_t target_pool_local = 64;     // OSPREY_TARGET_POOL_LOCAL
  std::size_t target_pool_global = 1024;  // OSPREY_TARGET_POOL_GLOBAL
  std::size_t piggyback_threshold = 64;   // OSPREY_PIGGYBACK_THRESHOLD: ops queued before issuing
  std::size_t single_op_threshold = 256;  // OSPREY_SINGLE_OP_THRESHOLD: bytes, LOCK+OP+UNLOCK
  std::size_t eager_limit = 4096;         // OSPREY_EAGER_LIMIT: bytes sent with the header
  std::size_t recv_slots = 128;           // OSPREY_RECV_SLOTS: request receive space (slots)
  // Credit flow control (message path).
  std::size_t credit_bytes = 1024;   // OSPREY_CREDIT_BYTES: receive space per credit
  std::size_t credits_per_peer = 8;  // OSPREY_CREDITS_PER_PEER: initial loan
  std::size_t banked_credits = 64;   // OSPREY_BANKED_CREDITS: discretionary pool
  std::size_t credit_epoch = 1024;   // OSPREY_CREDIT_EPOCH: requests per decay epoch
  bool progress_thread = false;      // OSPREY_PROGRESS_THREAD
  std::size_t virtual_nodes = 1;     // OSPREY_VIRTUAL_NODES: tests split a node in k
  bool interpose_blocking = true;    // OSPREY_INTERPOSE_BLOCKING
};

// The process-wide configuration, parsed on first use.
const Config& config();

// Re-reads the environment (tests only).
void reload_config_for_tests();

}  // namespace osprey
