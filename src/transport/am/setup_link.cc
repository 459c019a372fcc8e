#include "transport/am/setup_link.h"

#include "progress/host_wait.h"

namespace osprey::am {

void SetupLink::send(int dest, const void* p, std::size_t n) const {
  MPI_Request r;
  PMPI_Isend(p, static_cast<int>(n), MPI_BYTE, dest, tag_, comm_, &r);
  progress::wait_host(&r, idle_);
}

void SetupLink::receive(int src, void* p, std::size_t n) const {
  MPI_Request r;
  PMPI_Irecv(p, static_cast<int>(n), MPI_BYTE, src, tag_, comm_, &r);
  progress::wait_host(&r, idle_);
}

void SetupLink::receive_each(const std::vector<int>& ranks, void* p, std::size_t n) const {
  std::vector<MPI_Request> reqs(ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] >= 0)
      PMPI_Irecv(static_cast<char*>(p) + i * n, static_cast<int>(n), MPI_BYTE, ranks[i], tag_,
                 comm_, &reqs[i]);
  progress::wait_host_all(static_cast<int>(reqs.size()), reqs.data(), idle_);
}

void SetupLink::send_each(const std::vector<int>& ranks, const void* p, std::size_t n) const {
  std::vector<MPI_Request> reqs(ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] >= 0)
      PMPI_Isend(p, static_cast<int>(n), MPI_BYTE, ranks[i], tag_, comm_, &reqs[i]);
  progress::wait_host_all(static_cast<int>(reqs.size()), reqs.data(), idle_);
}

}  // namespace osprey::am
