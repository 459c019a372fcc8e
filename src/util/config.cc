#include "util/config.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace osprey {
namespace {

constexpr ConfigVar kVars[] = {
    {"OSPREY_TRANSPORT", &Config::transport, 0,
     "`am` forces every target (node-local ones and self too) onto the message path"},
    {"OSPREY_CMA", &Config::cma, 0,
     "cross-memory attach to node peers' private window memory (`0`: messages instead)"},
    {"OSPREY_SHARE_IN_PLACE", &Config::share_in_place, 0,
     "largest `MPI_Win_create` window or `MPI_Win_attach` region (bytes) whose private memory "
     "(malloc, heap, static arrays) is moved into shared memory in place, at the same addresses, "
     "for node peers to reach with loads, stores and CPU atomics (`0`: never; cross-memory "
     "attach instead)"},
    {"OSPREY_CMA_QUEUE_LIMIT", &Config::cma_queue_limit, 0,
     "largest put (bytes) to a peer's private memory that waits for the synchronization, to be "
     "issued with the others in one system call; gets of any size wait (`0`: every put and get "
     "at once)"},
    {"OSPREY_DEBUG", &Config::debug, 0, "`1`: log setup decisions and every error to stderr"},
    {"OSPREY_STATS", &Config::stats, 0,
     "`1`: print message counts per rank at `MPI_Finalize`, and at `MPI_Win_free` of a window "
     "over private memory how many small operations its node ranks served each other"},
    {"OSPREY_ACC_STAGE", &Config::acc_stage, 0,
     "bytes of each rank's staging area in windows over private memory: accumulates and small "
     "puts from node peers wait there under fence and PSCW, small gets under fence, for the "
     "target to apply them (`0`: none)"},
    {"OSPREY_STAGE_OP_MAX", &Config::stage_op_max, 0,
     "largest put, get or accumulate (bytes) copied into a staging area (`0`: from the measured "
     "cost of a system call, 1 or 8 KiB)"},
    {"OSPREY_LOCK_STRIPES", &Config::lock_stripes, 1,
     "accumulate lock stripes per window (non-CPU-atomic cases)"},
    {"OSPREY_SLOTS", &Config::slots, 1,
     "slots of a window's operation table (message path; rounded up to a power of two)"},
    {"OSPREY_OP_POOL_LOCAL", &Config::op_pool_local, 1, "operation elements per window"},
    {"OSPREY_OP_POOL_GLOBAL", &Config::op_pool_global, 0,
     "operation elements shared by all windows"},
    {"OSPREY_TARGET_POOL_LOCAL", &Config::target_pool_local, 1, "target elements per window"},
    {"OSPREY_TARGET_POOL_GLOBAL", &Config::target_pool_global, 0,
     "target elements shared by all windows"},
    {"OSPREY_PIGGYBACK_THRESHOLD", &Config::piggyback_threshold, 0,
     "operations queued per target before they are sent without waiting for a synchronization"},
    {"OSPREY_EAGER_LIMIT", &Config::eager_limit, 0,
     "bytes that travel inside a request; larger payloads go as separate messages into place"},
    {"OSPREY_REMOTE_PIECE", &Config::remote_piece, 0,
     "the host's eager message size, less room for headers (bytes): toward ranks on other "
     "nodes, payloads (batch payloads too) and get data of up to 6 such pieces travel as "
     "messages of at most one piece each, the small gets one request carries return at most "
     "this much, and a reply that would gather 1-4 pieces of gets' data is not made (`0`: one "
     "message, no cap)"},
    {"OSPREY_RECV_SLOTS", &Config::recv_slots, 2,
     "request receive space per communicator, in messages (the credits); fixed, whatever the "
     "number of ranks"},
    {"OSPREY_CREDITS_PER_PEER", &Config::credits_per_peer, 1,
     "initial loan of credits to each peer (less when many peers share the space)"},
    {"OSPREY_BANKED_CREDITS", &Config::banked_credits, 0, "credits kept back for peers that stall"},
    {"OSPREY_CREDIT_EPOCH", &Config::credit_epoch, 1,
     "requests per credit epoch (usage statistics decay)"},
    {"OSPREY_FENCE_MARK_RANKS", &Config::fence_mark_ranks, 0,
     "largest window (ranks) whose fence on the message path exchanges fence marks, one message "
     "from every rank to every other; larger ones meet in a dissemination barrier"},
    {"OSPREY_PROGRESS_THREAD", &Config::progress_thread, 0,
     "`1`: a progress thread serves requests while the application computes"},
    {"OSPREY_INTERPOSE_BLOCKING", &Config::interpose_blocking, 0,
     "run progress inside blocking collectives (on every rank) and point-to-point calls (where a "
     "message endpoint exists); `auto`: when `MPI_Init` finds the job can use the message path"},
    {"OSPREY_OVERSUBSCRIBED", &Config::oversubscribed, 0,
     "wait as on a node with more ranks than CPUs (hand the CPU over at once, sleep until woken); "
     "`auto`: when a node's ranks outnumber the CPUs of their affinity masks"},
    {"OSPREY_VIRTUAL_NODES", &Config::virtual_nodes, 1,
     "tests only: split each node into k pretend nodes (world rank i in node i % k), reached by "
     "messages; `MPI_Comm_split_type` follows them"},
};

bool parse_bool(const char* v, bool* out) {
  if (!std::strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
      !strcasecmp(v, "off")) {
    *out = false;
    return true;
  }
  if (!std::strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
      !strcasecmp(v, "on")) {
    *out = true;
    return true;
  }
  return false;
}

bool parse_size(const char* v, std::size_t min, std::size_t* out) {
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || x < min || *v == '-') return false;
  *out = static_cast<std::size_t>(x);
  return true;
}

// Sets one field from the environment; a value that does not parse keeps the default, with a
// warning naming what was expected.
void apply(Config& c, const ConfigVar& var) {
  const char* v = std::getenv(var.name);
  if (!v || !*v) return;
  const char* want = nullptr;
  std::visit(
      [&](auto field) {
        using T = std::remove_cvref_t<decltype(c.*field)>;
        if constexpr (std::is_same_v<T, TransportMode>) {
          if (!strcasecmp(v, "am"))
            c.*field = TransportMode::kAm;
          else if (!strcasecmp(v, "auto"))
            c.*field = TransportMode::kAuto;
          else
            want = "auto or am";
        } else if constexpr (std::is_same_v<T, Switch>) {
          bool on = false;
          if (!strcasecmp(v, "auto"))
            c.*field = Switch::kAuto;
          else if (parse_bool(v, &on))
            c.*field = on ? Switch::kOn : Switch::kOff;
          else
            want = "auto, 0 or 1";
        } else if constexpr (std::is_same_v<T, bool>) {
          if (!parse_bool(v, &(c.*field))) want = "0/1, true/false, yes/no or on/off";
        } else {
          std::size_t x = 0;
          if (parse_size(v, var.min, &x))
            c.*field = static_cast<T>(x);
          else
            want = "an integer at least the minimum";
        }
      },
      var.field);
  if (want)
    std::fprintf(stderr, "osprey: ignoring %s=%s (want %s; minimum %zu)\n", var.name, v, want,
                 var.min);
}

Config parse() {
  Config c;
  for (const ConfigVar& v : kVars)
    apply(c, v);
  return c;
}

Config& storage() {
  static Config c = parse();
  return c;
}

}  // namespace

std::span<const ConfigVar> config_vars() {
  return kVars;
}

std::string config_value(const Config& c, const ConfigVar& v) {
  return std::visit(
      [&](auto field) -> std::string {
        using T = std::remove_cvref_t<decltype(c.*field)>;
        if constexpr (std::is_same_v<T, TransportMode>)
          return c.*field == TransportMode::kAm ? "am" : "auto";
        else if constexpr (std::is_same_v<T, Switch>)
          return c.*field == Switch::kAuto ? "auto" : c.*field == Switch::kOn ? "1" : "0";
        else if constexpr (std::is_same_v<T, bool>)
          return c.*field ? "1" : "0";
        else
          return std::to_string(c.*field);
      },
      v.field);
}

const Config& config() {
  return storage();
}

void reload_config_for_tests() {
  storage() = parse();
}

}  // namespace osprey
