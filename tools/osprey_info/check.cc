// The launcher side of osprey-info --check: runs the worker under the host's launcher with
// osprey preloaded, in the one-node setting and with every target on the message path, and
// says which path each window flavor took and whether its data arrived intact.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "host.h"
#include "osprey/version.h"
#include "run.h"
#include "util/config.h"

namespace osprey::info {
namespace {

// A job normally takes seconds; this bounds a hang (launcher and ranks are killed then).
constexpr int kJobTimeoutSeconds = 60;
constexpr int kRanks = 2;

struct Setting {
  const char* label;
  const char* spread_label;  // when the ranks are not on one node
  const char* transport;     // OSPREY_TRANSPORT for the job
};
constexpr Setting kSettings[] = {
    {"one node", "several nodes", "auto"},
    {"message path (OSPREY_TRANSPORT=am)", "message path (OSPREY_TRANSPORT=am)", "am"}};

struct WindowResult {
  std::string path, data, version;
};

struct WorkerReport {
  std::map<std::string, WindowResult> windows;
  std::string ranks, node_ranks;
  bool done = false;
  std::string other_output;  // launcher and rank messages, shown when something failed
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, '\t');)
    fields.push_back(f);
  return fields;
}

WorkerReport parse(const std::string& output) {
  WorkerReport rep;
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = split_tabs(line);
    if (f.empty() || f[0] != kWorkerTag) {
      rep.other_output += line + "\n";
    } else if (f.size() == 6 && f[1] == "window") {
      rep.windows[f[2]] = {f[3], f[4], f[5]};
    } else if (f.size() == 4 && f[1] == "ranks") {
      rep.ranks = f[2];
      rep.node_ranks = f[3];
    } else if (f.size() == 2 && f[1] == "done") {
      rep.done = true;
    } else {
      rep.other_output += line + "\n";
    }
  }
  return rep;
}

// The launcher command for one setting: the preload and the transport go to the ranks only.
std::vector<std::string> job_command(const std::string& preload, const char* transport) {
  std::vector<std::string> cmd{launcher()};
  const std::pair<std::string, std::string> job_env[] = {{"LD_PRELOAD", preload},
                                                         {"OSPREY_TRANSPORT", transport}};
#ifdef OSPREY_HOST_OPENMPI
  // Open MPI's launcher passes on only what it is told to: osprey's settings and sanitizer
  // options of the caller's environment as well.
  for (const auto& [name, value] : job_env)
    cmd.insert(cmd.end(), {"-x", name + "=" + value});
  for (const ConfigVar& v : config_vars())
    if (std::getenv(v.name) && std::string(v.name) != "OSPREY_TRANSPORT")
      cmd.insert(cmd.end(), {"-x", v.name});
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS"})
    if (std::getenv(name)) cmd.insert(cmd.end(), {"-x", name});
#else
  for (const auto& [name, value] : job_env)
    cmd.insert(cmd.end(), {"-genv", name, value});
#endif
  cmd.insert(cmd.end(), {"-n", std::to_string(kRanks), self_path(), "--check-worker"});
  return cmd;
}

// What went wrong with the job as a whole (empty if nothing).
std::string job_problem(const RunResult& r, const WorkerReport& rep) {
  if (!r.started) return "cannot start " + launcher();
  if (r.interrupted) return "interrupted: the job was killed";
  if (r.timed_out)
    return "the job did not end within " + std::to_string(kJobTimeoutSeconds + 10) +
           " s: launcher and ranks were killed";
  if (r.signal) return "the launcher was killed by signal " + std::to_string(r.signal);
  if (r.exit_code != 0) return "the launcher exited with status " + std::to_string(r.exit_code);
  if (!rep.done) return "the job ended without finishing its checks";
  return {};
}

struct Outcome {
  int problems = 0;
  bool interrupted = false;  // the user asked to stop
};

// Runs one setting and prints its lines and problems.
Outcome check_setting(const Setting& s, const std::string& preload) {
  // Both launchers end a job that outlives MPIEXEC_TIMEOUT themselves, more cleanly than a kill.
  std::vector<std::pair<std::string, std::string>> env;
  if (!std::getenv("MPIEXEC_TIMEOUT"))
    env.emplace_back("MPIEXEC_TIMEOUT", std::to_string(kJobTimeoutSeconds));
  const RunResult r = run_command(job_command(preload, s.transport), env, kJobTimeoutSeconds + 10);
  const WorkerReport rep = parse(r.output);

  if (rep.ranks.empty())
    std::printf("%s:\n", s.label);
  else if (rep.ranks == rep.node_ranks)
    std::printf("%s (%s ranks on one node):\n", s.label, rep.ranks.c_str());
  else  // the launcher placed the ranks on several nodes (or the host pretends it did)
    std::printf("%s (%s ranks, %s of them on rank 0's node):\n", s.spread_label, rep.ranks.c_str(),
                rep.node_ranks.c_str());
  std::vector<std::string> problems;
  std::string by_host, wrong_data, missing;  // flavor lists
  std::size_t n_by_host = 0;
  const auto add = [](std::string& list, const char* flavor) {
    list += (list.empty() ? "" : ", ") + std::string(flavor);
  };
  for (const char* flavor : kFlavors) {
    const auto it = rep.windows.find(flavor);
    if (it == rep.windows.end()) {
      if (!rep.windows.empty()) std::printf("  %-40s no result\n", flavor);
      add(missing, flavor);
      continue;
    }
    const WindowResult& w = it->second;
    if (w.data == "skipped") {
      std::printf("  %-40s skipped: the ranks are not on one node\n", flavor);
      continue;
    }
    if (w.version == "-") {
      std::printf("  %-40s host RMA (no osprey_version)  data %s\n", flavor, w.data.c_str());
      add(by_host, flavor);
      ++n_by_host;
    } else {
      std::printf("  %-40s path %-10s data %s\n", flavor, w.path.c_str(), w.data.c_str());
      if (w.version != OSPREY_VERSION_STRING)
        std::printf("  %-40s (served by %s; this osprey-info is %s)\n", "", w.version.c_str(),
                    OSPREY_VERSION_STRING);
    }
    if (w.data != "ok") add(wrong_data, flavor);
  }
  const std::string job = job_problem(r, rep);
  if (!job.empty()) problems.push_back(job);
  if (rep.windows.empty() && job.empty())
    problems.push_back("the job reported no window");
  else if (!rep.windows.empty() && !missing.empty())
    problems.push_back("no result for " + missing);
  if (n_by_host)
    problems.push_back((n_by_host == kFlavors.size() ? "every window" : by_host) +
                       " served by the host MPI's RMA, not osprey: is the library preloaded "
                       "ahead of the host MPI?");
  if (!wrong_data.empty()) problems.push_back("data arrived wrong: " + wrong_data);

  for (const std::string& p : problems)
    std::printf("  problem: %s\n", p.c_str());
  if (!problems.empty() && !rep.other_output.empty()) {
    std::printf("  output of the job:\n");
    std::stringstream in(rep.other_output);
    for (std::string line; std::getline(in, line);)
      std::printf("  | %s\n", line.c_str());
  }
  return {static_cast<int>(problems.size()), r.interrupted};
}

}  // namespace

int run_check() {
  const std::string lib = osprey_library();
  if (access(lib.c_str(), R_OK) != 0) {
    std::printf(
        "osprey-info --check: FAILED: the osprey library %s is not there (build the "
        "osprey target, or set OSPREY_LIB)\n",
        lib.c_str());
    return 1;
  }
  // A sanitizer runtime must be loaded before the instrumented library (as tools/osprey-run).
  std::string preload = lib;
  if (const char* first = std::getenv("OSPREY_PRELOAD_FIRST"); first && *first)
    preload = std::string(first) + " " + lib;
  std::printf("osprey-info --check: %d ranks under %s, LD_PRELOAD=%s\n", kRanks, launcher().c_str(),
              preload.c_str());
  int problems = 0;
  for (const Setting& s : kSettings) {
    const Outcome o = check_setting(s, preload);
    problems += o.problems;
    if (o.interrupted) break;
  }
  if (problems) {
    std::printf("osprey-info --check: FAILED (%d problem%s above)\n", problems,
                problems == 1 ? "" : "s");
    return 1;
  }
  std::printf(
      "osprey-info --check: OK (osprey served every window in both settings, and every put, "
      "get and accumulate arrived intact)\n");
  return 0;
}

}  // namespace osprey::info
