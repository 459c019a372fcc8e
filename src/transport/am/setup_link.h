// Small records exchanged point to point among the ranks of a communicator while a window is
// set up (each rank to its node root and back), tagged so that concurrent setups cannot mix.
// Waits run what the caller passes as `idle`: window setup is a safe point, and a peer may need
// this process to serve requests meanwhile.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "progress/engine.h"

namespace osprey::am {

class SetupLink {
 public:
  SetupLink(MPI_Comm comm, int tag, progress::Idle idle) : comm_(comm), tag_(tag), idle_(idle) {}

  void send(int dest, const void* p, std::size_t n) const;
  void receive(int src, void* p, std::size_t n) const;
  // Record i (of `n` bytes) from ranks[i], into p + i * n; ranks[i] < 0 is skipped.
  void receive_each(const std::vector<int>& ranks, void* p, std::size_t n) const;
  // The same record to every rank in `ranks` (negative ones skipped).
  void send_each(const std::vector<int>& ranks, const void* p, std::size_t n) const;

 private:
  MPI_Comm comm_;
  int tag_;
  progress::Idle idle_;
};

}  // namespace osprey::am
