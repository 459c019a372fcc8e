#include "progress/liveness.h"

#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <mutex>

namespace osprey::progress {
namespace {

struct Peer {
  int refs = 0;
  int world_rank = -1;
};

std::mutex mu;
std::map<pid_t, Peer>& peers() {
  static auto* m = new std::map<pid_t, Peer>;  // never destroyed: used until exit
  return *m;
}

}  // namespace

void watch_peer(pid_t pid, int world_rank) {
  if (pid == getpid()) return;
  std::lock_guard<std::mutex> g(mu);
  Peer& p = peers()[pid];
  ++p.refs;
  p.world_rank = world_rank;
}

void unwatch_peer(pid_t pid) {
  std::lock_guard<std::mutex> g(mu);
  auto it = peers().find(pid);
  if (it != peers().end() && --it->second.refs == 0) peers().erase(it);
}

bool process_alive(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return true;  // no procfs: trust kill()
  char state = 0;
  // Format: pid (comm) state ...; comm may contain spaces, so find the last ')'.
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  for (size_t i = n; i-- > 0;) {
    if (buf[i] == ')') {
      if (i + 2 < n) state = buf[i + 2];
      break;
    }
  }
  return state != 'Z' && state != 'X';
}

void check_peers() {
  pid_t dead = 0;
  int rank = -1;
  {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& [pid, peer] : peers()) {
      if (!process_alive(pid)) {
        dead = pid;
        rank = peer.world_rank;
        break;
      }
    }
  }
  if (!dead) return;
  std::fprintf(stderr,
               "osprey: rank %d (process %d) on this node has exited while this process (%d) "
               "waits for it; aborting the job instead of hanging\n",
               rank, static_cast<int>(dead), static_cast<int>(getpid()));
  std::fflush(stderr);
  // The launcher forwards output through its own processes, and an abort may end them before
  // they passed the message on: give them a moment.
  usleep(200 * 1000);
  int up = 0, down = 0;
  PMPI_Initialized(&up);
  PMPI_Finalized(&down);
  if (up && !down) PMPI_Abort(MPI_COMM_WORLD, 70);
  _exit(70);
}

}  // namespace osprey::progress
