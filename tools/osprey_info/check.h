// osprey-info --check: a two-rank self-test under the host launcher with osprey preloaded. The
// launcher side (check.cc) runs this same executable as the MPI program (worker.cc), once per
// setting, and judges the lines the worker prints.
#pragma once

#include <array>

namespace osprey::info {

// The window flavors the worker tries, in the order it prints them.
inline constexpr std::array<const char*, 5> kFlavors = {
    "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create (malloc memory)",
    "MPI_Win_create (MPI_Alloc_mem memory)", "MPI_Win_create_dynamic"};

// Worker lines start with this tag and carry tab-separated fields:
//   <tag> window <flavor> <osprey_path or -> <ok|wrong|skipped> <osprey_version or ->
//   <tag> ranks <world size> <ranks on rank 0's node>
//   <tag> done
inline constexpr const char* kWorkerTag = "osprey-check";

// The launcher side: exit status of `osprey-info --check`.
int run_check();

// The MPI program (`osprey-info --check-worker`, run by run_check under the launcher).
int check_worker();

}  // namespace osprey::info
