// osprey-info: what this osprey is and how it is configured, like ucx_info or ompi_info.
//   osprey-info              version and every configuration variable (default, current value,
//                            meaning)
//   osprey-info --markdown   the configuration table as the README shows it
#include <cstdio>
#include <cstring>

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

void plain() {
  const Config defaults;
  std::printf("%s\n\nconfiguration (environment variables, read once):\n", OSPREY_VERSION_STRING);
  for (const ConfigVar& v : config_vars()) {
    const std::string def = config_value(defaults, v), cur = config_value(config(), v);
    std::printf("  %-28s default %-6s current %-6s%s\n      %s\n", v.name, def.c_str(), cur.c_str(),
                def == cur ? "" : " (set)", v.meaning);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "--markdown")) {
    markdown();
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "usage: osprey-info [--markdown]\n");
    return 2;
  }
  plain();
  return 0;
}
