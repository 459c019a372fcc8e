// The host MPI osprey-info was built for, and where it finds the launcher and the osprey
// library that `osprey-info --check` preloads.
#pragma once

#include <string>
#include <vector>

namespace osprey::info {

// "MPICH" or "Open MPI", and the version of the mpi.h osprey was compiled against.
const char* host_mpi_name();
std::string host_header_version();

// The host library's own version string (MPI_Get_library_version, callable before MPI_Init),
// one entry per line.
std::vector<std::string> host_library_version();

// The MPI standard version the host library implements, e.g. "4.0".
std::string host_standard_version();

// Absolute path of this executable.
std::string self_path();

// The osprey library: $OSPREY_LIB, else OSPREY_INFO_LIBRARY relative to this executable's
// directory.
std::string osprey_library();

// The host's launcher: $MPIEXEC, else the one found at build time.
std::string launcher();

}  // namespace osprey::info
