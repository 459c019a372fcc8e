#include "transport/am/transfer.h"

#include "datatype/byte_layout.h"

namespace osprey::am {

Transfer& Transfer::operator=(Transfer&& o) noexcept {
  if (this != &o) {
    if (!idle()) cancel();
    req_ = o.req_;
    type_ = o.type_;
    receive_ = o.receive_;
    o.req_ = MPI_REQUEST_NULL;
    o.type_ = MPI_DATATYPE_NULL;
  }
  return *this;
}

Transfer::~Transfer() {
  if (!idle()) cancel();
}

Transfer Transfer::send(MPI_Comm comm, int dest, int tag, const void* buf, std::size_t bytes) {
  Transfer x;
  PMPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm, &x.req_);
  return x;
}

Transfer Transfer::send(MPI_Comm comm, int dest, int tag, const void* base, MPI_Count count,
                        const dt::TypeInfo& t) {
  dt::ByteLayout l = dt::byte_layout(base, count, t);
  Transfer x;
  PMPI_Isend(l.addr, l.count, l.type, dest, tag, comm, &x.req_);
  if (l.owned) x.type_ = l.type;
  return x;
}

Transfer Transfer::receive(MPI_Comm comm, int src, int tag, void* buf, std::size_t bytes) {
  Transfer x;
  x.receive_ = true;
  PMPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, src, tag, comm, &x.req_);
  return x;
}

Transfer Transfer::receive(MPI_Comm comm, int src, int tag, void* base, MPI_Count count,
                           const dt::TypeInfo& t) {
  dt::ByteLayout l = dt::byte_layout(base, count, t);
  Transfer x;
  x.receive_ = true;
  PMPI_Irecv(l.addr, l.count, l.type, src, tag, comm, &x.req_);
  if (l.owned) x.type_ = l.type;
  return x;
}

bool Transfer::test_host() {
  int done = 0;
  PMPI_Test(&req_, &done, MPI_STATUS_IGNORE);
  if (!done) return false;
  finish();
  return true;
}

void Transfer::cancel() {
  if (idle()) return;
  if (receive_) PMPI_Cancel(&req_);
  PMPI_Wait(&req_, MPI_STATUS_IGNORE);
  finish();
}

void Transfer::finish() {
  req_ = MPI_REQUEST_NULL;
  if (type_ != MPI_DATATYPE_NULL) PMPI_Type_free(&type_);
}

}  // namespace osprey::am
