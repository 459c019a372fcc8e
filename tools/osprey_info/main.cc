// osprey-info: what this osprey is, what it runs on and how it is configured, like ucx_info
// or ompi_info.
//   osprey-info              version, host MPI, what the machine offers (cross-memory attach,
//                            /dev/shm, CPUs) and every configuration variable (default, current
//                            value, meaning)
//   osprey-info --markdown   the configuration table as the README shows it
//   osprey-info --check      a two-rank self-test with osprey preloaded: the path each window
//                            flavor takes, and whether its data arrives (exit status 0 if all do)
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "host.h"
#include "machine.h"
#include "osprey/version.h"
#include "util/config.h"

using namespace osprey;

namespace {

void markdown() {
  const Config defaults;
  std::printf("| variable | default | meaning |\n| --- | --- | --- |\n");
  for (const ConfigVar& v : config_vars())
    std::printf("| `%s` | `%s` | %s |\n", v.name, config_value(defaults, v).c_str(), v.meaning);
}

// Long lines of the host's version string (its configure line) are cut at this width.
constexpr std::size_t kVersionLineWidth = 100;

void print_host() {
  std::printf("%-16s%s, built against its mpi.h %s; the library implements MPI %s\n",
              "host MPI:", info::host_mpi_name(), info::host_header_version().c_str(),
              info::host_standard_version().c_str());
  const char* label = "host library:";
  for (std::string line : info::host_library_version()) {
    if (line.size() > kVersionLineWidth) line = line.substr(0, kVersionLineWidth - 3) + "...";
    std::printf("%-16s%s\n", label, line.c_str());
    label = "";
  }
  std::printf("%-16s%s (MPIEXEC overrides)\n", "launcher:", info::launcher().c_str());
  const std::string lib = info::osprey_library();
  std::printf("%-16s%s (OSPREY_LIB overrides)%s\n", "osprey library:", lib.c_str(),
              access(lib.c_str(), R_OK) == 0 ? "" : ": not found");
}

void print_config() {
  const Config defaults;
  std::printf("configuration (environment variables, read once):\n");
  for (const ConfigVar& v : config_vars()) {
    const std::string def = config_value(defaults, v), cur = config_value(config(), v);
    std::printf("  %-28s default %-6s current %s%s\n      %s\n", v.name, def.c_str(), cur.c_str(),
                def == cur ? "" : " (set)", v.meaning);
  }
}

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: osprey-info [--markdown | --check]\n"
               "  (no option)  version, host MPI, machine and configuration\n"
               "  --markdown   the configuration table as the README shows it\n"
               "  --check      run a two-rank self-test under the host launcher with osprey\n"
               "               preloaded (MPIEXEC, OSPREY_LIB, OSPREY_PRELOAD_FIRST override)\n");
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (argc > 2) mode = "?";
  if (!std::strcmp(mode, "--markdown")) {
    markdown();
    return 0;
  }
  if (!std::strcmp(mode, "--check")) return info::run_check();
  if (!std::strcmp(mode, "--check-worker")) return info::check_worker();
  if (!std::strcmp(mode, "--help") || !std::strcmp(mode, "-h")) {
    usage(stdout);
    return 0;
  }
  if (*mode) {
    usage(stderr);
    return 2;
  }
  std::printf("%s\n\n", OSPREY_VERSION_STRING);
  print_host();
  std::printf("\n");
  info::print_machine();
  std::printf("\n");
  print_config();
  return 0;
}
