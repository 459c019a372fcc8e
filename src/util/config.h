// Settings read once from OSPREY_* environment variables. The table in config.cc is the only
// list of them: parsing, osprey-info's output and the README's table all come from it (a test
// checks the README against it).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <variant>

namespace osprey {

enum class TransportMode { kAuto, kAm };
// A switch that may also be left to osprey's judgement.
enum class Switch { kAuto, kOn, kOff };

// A switch's setting, with kAuto decided by `automatic`.
inline bool switched_on(Switch s, bool automatic) {
  return s == Switch::kOn || (s == Switch::kAuto && automatic);
}

struct Config {
  TransportMode transport = TransportMode::kAuto;
  bool cma = true;
  std::size_t cma_queue_limit = 8192;
  int debug = 0;
  bool stats = false;
  std::size_t lock_stripes = 256;
  std::size_t acc_stage = 32768;
  std::size_t stage_op_max = 0;
  std::size_t share_in_place = std::size_t{64} << 20;
  // Operation table (message path).
  std::size_t slots = 64;
  std::size_t op_pool_local = 256;
  std::size_t op_pool_global = 4096;
  std::size_t target_pool_local = 64;
  std::size_t target_pool_global = 1024;
  std::size_t piggyback_threshold = 64;
  std::size_t eager_limit = 4096;
  std::size_t remote_piece = 7936;  // under 8 KiB with the host's headers
  std::size_t recv_slots = 128;
  // Credit flow control (message path).
  std::size_t credits_per_peer = 8;
  std::size_t banked_credits = 64;
  std::size_t credit_epoch = 1024;
  std::size_t fence_mark_ranks = 16;
  bool progress_thread = false;
  Switch interpose_blocking = Switch::kAuto;
  Switch oversubscribed = Switch::kAuto;
  std::size_t virtual_nodes = 1;
};

// One environment variable: the field it sets and what it means.
struct ConfigVar {
  const char* name;
  std::variant<TransportMode Config::*, Switch Config::*, bool Config::*, int Config::*,
               std::size_t Config::*>
      field;
  std::size_t min;  // smallest accepted value of a number
  const char* meaning;
};

// Every variable, in the order the README lists them.
std::span<const ConfigVar> config_vars();

// A variable's value in `c`, as the environment would spell it.
std::string config_value(const Config& c, const ConfigVar& v);

// The process-wide configuration, parsed on first use.
const Config& config();

// Re-reads the environment (tests only).
void reload_config_for_tests();

}  // namespace osprey
