#include "mpi/errors.h"

#include <mutex>
#include <unordered_map>

#include "mpi/host.h"

namespace osprey::errors {
namespace {

std::mutex mu;

}  // namespace

int code_for(const Status& s) {
  if (s.ok()) return MPI_SUCCESS;
  if (!s.msg) return s.cls;
  std::lock_guard<std::mutex> g(mu);
  static auto* codes = new std::unordered_map<const char*, int>;  // lives until exit
  auto it = codes->find(s.msg);
  if (it != codes->end()) return it->second;
  int code = s.cls;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized && PMPI_Add_error_code(s.cls, &code) == MPI_SUCCESS) {
    PMPI_Add_error_string(code, s.msg);
  } else {
    code = s.cls;
  }
  codes->emplace(s.msg, code);
  return code;
}

int raise_on_win(MPI_Win anchor, const Status& s) {
  const int code = code_for(s);
  host::fn().win_call_errhandler(anchor, code);
  return code;
}

int raise_on_comm(MPI_Comm comm, const Status& s) {
  const int code = code_for(s);
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

int raise_no_object(const Status& s) { return raise_on_comm(MPI_COMM_WORLD, s); }

}  // namespace osprey::errors
