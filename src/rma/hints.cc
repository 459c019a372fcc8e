#include "rma/hints.h"

#include <cstring>
#include <string>

#include "osprey/version.h"

namespace osprey::rma {
namespace {

bool get(MPI_Info info, const char* key, std::string& value) {
  int flag = 0, len = 0;
  if (PMPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS) return false;
  if (!flag) return false;
  value.assign(static_cast<size_t>(len) + 1, '\0');
  PMPI_Info_get(info, key, len + 1, value.data(), &flag);
  value.resize(static_cast<size_t>(len));
  return flag != 0;
}

bool truthy(const std::string& v) {
  return v == "true" || v == "1" || v == "yes";
}

uint8_t parse_ordering(const std::string& v, uint8_t current) {
  if (v == "none") return 0;
  uint8_t bits = 0;
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t end = v.find(',', pos);
    if (end == std::string::npos) end = v.size();
    const std::string tok = v.substr(pos, end - pos);
    if (tok == "rar")
      bits |= Hints::kRar;
    else if (tok == "raw")
      bits |= Hints::kRaw;
    else if (tok == "war")
      bits |= Hints::kWar;
    else if (tok == "waw")
      bits |= Hints::kWaw;
    else if (!tok.empty())
      return current;  // unknown token: keep the safe setting
    pos = end + 1;
  }
  return bits;
}

std::string ordering_string(uint8_t bits) {
  if (!bits) return "none";
  std::string s;
  const char* names[] = {"rar", "raw", "war", "waw"};
  for (int i = 0; i < 4; ++i)
    if (bits & (1 << i)) s += std::string(s.empty() ? "" : ",") + names[i];
  return s;
}

}  // namespace

Status Hints::read(MPI_Info info) {
  if (info == MPI_INFO_NULL) return kOk;
  int nkeys = 0;  // also tells whether the host knows the handle
  if (PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
    return Err(MPI_ERR_INFO, "osprey: invalid info object");
  std::string v;
  if (get(info, "no_locks", v)) no_locks = truthy(v);
  if (get(info, "accumulate_ordering", v)) ordering = parse_ordering(v, ordering);
  if (get(info, "accumulate_ops", v)) {
    if (v == "same_op") same_op = true;
    if (v == "same_op_no_op") same_op = false;
  }
  if (get(info, "same_size", v)) same_size = truthy(v);
  if (get(info, "same_disp_unit", v)) same_disp_unit = truthy(v);
  if (get(info, "alloc_shared_noncontig", v)) alloc_shared_noncontig = truthy(v);
  return kOk;
}

void write_hints(const Hints& h, const char* path, MPI_Info* out) {
  PMPI_Info_create(out);
  PMPI_Info_set(*out, "no_locks", h.no_locks ? "true" : "false");
  PMPI_Info_set(*out, "accumulate_ordering", ordering_string(h.ordering).c_str());
  PMPI_Info_set(*out, "accumulate_ops", h.same_op ? "same_op" : "same_op_no_op");
  PMPI_Info_set(*out, "same_size", h.same_size ? "true" : "false");
  PMPI_Info_set(*out, "same_disp_unit", h.same_disp_unit ? "true" : "false");
  PMPI_Info_set(*out, "alloc_shared_noncontig", h.alloc_shared_noncontig ? "true" : "false");
  PMPI_Info_set(*out, "osprey_version", OSPREY_VERSION_STRING);
  PMPI_Info_set(*out, "osprey_path", path);
}

}  // namespace osprey::rma
