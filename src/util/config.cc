#include "util/config.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace osprey {
namespace {

std::size_t read_size(const char* name, std::size_t def, std::size_t min) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || x < min) {
    std::fprintf(stderr, "osprey: ignoring %s=%s (want an integer >= %zu)\n", name, v, min);
    return def;
  }
  return static_cast<std::size_t>(x);
}

bool read_bool(const char* name, bool def) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  if (!std::strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
      !strcasecmp(v, "off"))
    return false;
  return true;
}

Config parse() {
  Config c;
  if (const char* t = std::getenv("OSPREY_TRANSPORT")) {
    if (!strcasecmp(t, "am")) {
      c.transport = TransportMode::kAm;
    } else if (*t && strcasecmp(t, "auto")) {
      std::fprintf(stderr, "osprey: ignoring OSPREY_TRANSPORT=%s (want auto or am)\n", t);
    }
  }
  c.cma = read_bool("OSPREY_CMA", c.cma);
  c.shared_alloc_mem = read_bool("OSPREY_SHARED_ALLOC_MEM", c.shared_alloc_mem);
  c.debug = static_cast<int>(read_size("OSPREY_DEBUG", 0, 0));
  c.stats = read_bool("OSPREY_STATS", c.stats);
  c.lock_stripes = read_size("OSPREY_LOCK_STRIPES", c.lock_stripes, 1);
  c.slots = read_size("OSPREY_SLOTS", c.slots, 1);
  c.op_pool_local = read_size("OSPREY_OP_POOL_LOCAL", c.op_pool_local, 1);
  c.op_pool_global = read_size("OSPREY_OP_POOL_GLOBAL", c.op_pool_global, 0);
  c.target_pool_local = read_size("OSPREY_TARGET_POOL_LOCAL", c.target_pool_local, 1);
  c.target_pool_global = read_size("OSPREY_TARGET_POOL_GLOBAL", c.target_pool_global, 0);
  c.piggyback_threshold = read_size("OSPREY_PIGGYBACK_THRESHOLD", c.piggyback_threshold, 0);
  c.single_op_threshold = read_size("OSPREY_SINGLE_OP_THRESHOLD", c.single_op_threshold, 0);
  c.eager_limit = read_size("OSPREY_EAGER_LIMIT", c.eager_limit, 0);
  c.recv_slots = read_size("OSPREY_RECV_SLOTS", c.recv_slots, 2);
  c.credit_bytes = read_size("OSPREY_CREDIT_BYTES", c.credit_bytes, 256);
  c.credits_per_peer = read_size("OSPREY_CREDITS_PER_PEER", c.credits_per_peer, 1);
  c.banked_credits = read_size("OSPREY_BANKED_CREDITS", c.banked_credits, 0);
  c.credit_epoch = read_size("OSPREY_CREDIT_EPOCH", c.credit_epoch, 1);
  c.progress_thread = read_bool("OSPREY_PROGRESS_THREAD", c.progress_thread);
  c.virtual_nodes = read_size("OSPREY_VIRTUAL_NODES", c.virtual_nodes, 1);
  c.interpose_blocking = read_bool("OSPREY_INTERPOSE_BLOCKING", c.interpose_blocking);
  return c;
}

Config& storage() {
  static Config c = parse();
  return c;
}

}  // namespace

const Config& config() {
  return storage();
}

void reload_config_for_tests() {
  storage() = parse();
}

}  // namespace osprey
