#include "mpi/errors.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "mpi/host.h"
#include "util/log.h"

namespace osprey::errors {
namespace {

std::mutex mu;

// MPICH 4.0.2 hands out codes for predefined classes whose string is an unrelated internal
// message; osprey only attaches its messages where the host keeps them.
bool host_keeps_strings() {
  static const bool keeps = [] {
    int code = MPI_SUCCESS;
    if (PMPI_Add_error_code(MPI_ERR_OTHER, &code) != MPI_SUCCESS) return false;
    PMPI_Add_error_string(code, "osprey: probe");
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(code, s, &len);
    return std::strcmp(s, "osprey: probe") == 0;
  }();
  return keeps;
}

// The standard's name of an error class, for messages.
const char* class_name(int cls) {
  switch (cls) {
#define OSPREY_CLASS(c) \
  case c:               \
    return #c;
    OSPREY_CLASS(MPI_ERR_ARG)
    OSPREY_CLASS(MPI_ERR_ASSERT)
    OSPREY_CLASS(MPI_ERR_BASE)
    OSPREY_CLASS(MPI_ERR_COMM)
    OSPREY_CLASS(MPI_ERR_COUNT)
    OSPREY_CLASS(MPI_ERR_DISP)
    OSPREY_CLASS(MPI_ERR_GROUP)
    OSPREY_CLASS(MPI_ERR_INFO_VALUE)
    OSPREY_CLASS(MPI_ERR_INTERN)
    OSPREY_CLASS(MPI_ERR_LOCKTYPE)
    OSPREY_CLASS(MPI_ERR_NO_MEM)
    OSPREY_CLASS(MPI_ERR_OP)
    OSPREY_CLASS(MPI_ERR_OTHER)
    OSPREY_CLASS(MPI_ERR_RANK)
    OSPREY_CLASS(MPI_ERR_RMA_ATTACH)
    OSPREY_CLASS(MPI_ERR_RMA_CONFLICT)
    OSPREY_CLASS(MPI_ERR_RMA_FLAVOR)
    OSPREY_CLASS(MPI_ERR_RMA_RANGE)
    OSPREY_CLASS(MPI_ERR_RMA_SHARED)
    OSPREY_CLASS(MPI_ERR_RMA_SYNC)
    OSPREY_CLASS(MPI_ERR_SIZE)
    OSPREY_CLASS(MPI_ERR_TYPE)
    OSPREY_CLASS(MPI_ERR_UNSUPPORTED_OPERATION)
    OSPREY_CLASS(MPI_ERR_WIN)
#undef OSPREY_CLASS
    default:
      return "error";
  }
}

// Fatal handlers may print only the host's class message: say what was wrong first.
template <class GetHandler>
void explain_if_fatal(const Status& s, GetHandler get) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  get(&eh);
  const bool fatal = eh == MPI_ERRORS_ARE_FATAL
#ifdef MPI_ERRORS_ABORT
                     || eh == MPI_ERRORS_ABORT
#endif
      ;
  if (eh != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&eh);
  // Where the host keeps our string, its handler prints it too, but not reliably: Open MPI's
  // fatal handler hands the text to its launcher, which can drop it while the job aborts.
  if (fatal && s.msg) {
    std::fprintf(stderr, "%s (%s)\n", s.msg, class_name(s.cls));
    std::fflush(stderr);
  }
}

}  // namespace

int code_for(const Status& s) {
  if (s.ok()) return MPI_SUCCESS;
  OSPREY_LOG(1, "error class %d: %s", s.cls, s.msg ? s.msg : "");
  if (!s.msg) return s.cls;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return s.cls;
  std::lock_guard<std::mutex> g(mu);
  if (!host_keeps_strings()) return s.cls;
  static auto* codes = new std::unordered_map<const char*, int>;  // lives until exit
  auto it = codes->find(s.msg);
  if (it != codes->end()) return it->second;
  int code = s.cls;
  if (PMPI_Add_error_code(s.cls, &code) == MPI_SUCCESS) {
    PMPI_Add_error_string(code, s.msg);
  } else {
    code = s.cls;
  }
  codes->emplace(s.msg, code);
  return code;
}

int raise_on_win(MPI_Win anchor, const Status& s) {
  const int code = code_for(s);
  explain_if_fatal(s, [&](MPI_Errhandler* eh) { host::fn().win_get_errhandler(anchor, eh); });
  host::fn().win_call_errhandler(anchor, code);
  return code;
}

int raise_on_comm(MPI_Comm comm, const Status& s) {
  const int code = code_for(s);
  if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
  explain_if_fatal(s, [&](MPI_Errhandler* eh) { PMPI_Comm_get_errhandler(comm, eh); });
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

int raise_no_object(const Status& s) {
  return raise_on_comm(MPI_COMM_WORLD, s);
}

}  // namespace osprey::errors
