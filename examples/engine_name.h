/* Which engine answers a window's RMA, for the examples' report lines: osprey windows carry the
 * info key osprey_version, the host MPI's do not. */
#pragma once

#include <mpi.h>
#include <stdio.h>

/* name: at least MPI_MAX_INFO_VAL + 1 bytes. */
static inline void engine_name(MPI_Win win, char* name) {
  MPI_Info info;
  int has = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, "osprey_version", MPI_MAX_INFO_VAL, name, &has);
  MPI_Info_free(&info);
  if (!has) snprintf(name, MPI_MAX_INFO_VAL + 1, "host MPI");
}
