#include "host.h"

#include <limits.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

// The library osprey-info reports and preloads must be the one this build makes.
#if defined(OSPREY_HOST_OPENMPI) != defined(OPEN_MPI)
#error "osprey-info is compiled against an mpi.h that is not the configured host MPI's"
#endif
#ifndef OSPREY_INFO_LIBRARY
#error "OSPREY_INFO_LIBRARY (the library's path from the executable's directory) is not defined"
#endif
#ifndef OSPREY_INFO_MPIEXEC
#error "OSPREY_INFO_MPIEXEC (the host's launcher) is not defined"
#endif

namespace osprey::info {

const char* host_mpi_name() {
#ifdef OSPREY_HOST_OPENMPI
  return "Open MPI";
#else
  return "MPICH";
#endif
}

std::string host_header_version() {
#ifdef OSPREY_HOST_OPENMPI
  char v[64];
  std::snprintf(v, sizeof v, "%d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                OMPI_RELEASE_VERSION);
  return v;
#else
  return MPICH_VERSION;
#endif
}

std::vector<std::string> host_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  // One entry per line, tabs and runs of blanks as one space.
  std::vector<std::string> lines(1);
  for (int i = 0; i < len && text[i]; ++i) {
    const char c = text[i];
    if (c == '\n') {
      lines.emplace_back();
    } else if (c == '\t' || c == ' ') {
      if (!lines.back().empty() && lines.back().back() != ' ') lines.back() += ' ';
    } else {
      lines.back() += c;
    }
  }
  while (!lines.empty() && lines.back().empty())
    lines.pop_back();
  return lines;
}

std::string host_standard_version() {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("osprey-info");
}

std::string osprey_library() {
  if (const char* lib = std::getenv("OSPREY_LIB"); lib && *lib) return lib;
  const std::string rel = OSPREY_INFO_LIBRARY;
  if (!rel.empty() && rel.front() == '/') return rel;
  const std::string self = self_path();
  const std::string path = self.substr(0, self.rfind('/') + 1) + rel;
  char real[PATH_MAX];
  return realpath(path.c_str(), real) ? std::string(real) : path;  // "bin/../lib" reads badly
}

std::string launcher() {
  if (const char* l = std::getenv("MPIEXEC"); l && *l) return l;
  return OSPREY_INFO_MPIEXEC;
}

}  // namespace osprey::info
