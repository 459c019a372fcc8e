#include "rma/transfer.h"

#include <sys/uio.h>

#include <vector>

#include "datatype/runs.h"
#include "transport/shm/cma.h"

namespace osprey::rma {
namespace {

void runs_of(const void* base, MPI_Count count, const dt::TypeInfo& t, std::vector<iovec>& out) {
  dt::RunCursor c(base, count, t);
  char* p;
  std::size_t n;
  while (c.next(p, n))
    out.push_back({p, n});
}

}  // namespace

Status cma_move(bool to_target, const TargetView& t, uint64_t where, MPI_Count tcount,
                const dt::TypeInfo& tt, const void* origin, MPI_Count ocount,
                const dt::TypeInfo& ot) {
  // The remote runs are computed with pointer arithmetic on the target's addresses only.
  const void* remote = reinterpret_cast<const void*>(remote_address(t, where));
  if (ot.dense && tt.dense) {
    char* r = static_cast<char*>(const_cast<void*>(remote)) + tt.true_lb;
    char* l = static_cast<char*>(const_cast<void*>(origin)) + ot.true_lb;
    const std::size_t n = dt::data_bytes(ocount, ot);
    return to_target ? shm::cma::write(t.pid, r, l, n) : shm::cma::read(t.pid, r, l, n);
  }
  std::vector<iovec> local, rem;
  runs_of(origin, ocount, ot, local);
  runs_of(remote, tcount, tt, rem);
  return to_target ? shm::cma::write(t.pid, local.data(), local.size(), rem.data(), rem.size())
                   : shm::cma::read(t.pid, local.data(), local.size(), rem.data(), rem.size());
}

}  // namespace osprey::rma
