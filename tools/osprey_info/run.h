// Runs a command in its own process group, with its output captured and a time limit: a job
// that hangs is killed, launcher and ranks together.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace osprey::info {

struct RunResult {
  bool started = false;
  bool timed_out = false;    // killed at the time limit
  bool interrupted = false;  // killed because osprey-info got SIGINT or SIGTERM
  int exit_code = -1;        // when it exited
  int signal = 0;            // when a signal ended it
  std::string output;        // stdout and stderr, interleaved
};

// Runs argv[0] (looked up in PATH) with `env` added to this process's environment.
RunResult run_command(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env,
                      int timeout_seconds);

}  // namespace osprey::info
