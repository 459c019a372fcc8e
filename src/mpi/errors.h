// Turns engine Status values into MPI error codes (with osprey's message attached, so
// MPI_Error_string explains what was wrong) and raises them on the right error handler.
#pragma once

#include <mpi.h>

#include "util/status.h"

namespace osprey::errors {

// An error code of class s.cls whose string is s.msg (registered once per message).
int code_for(const Status& s);

// Raises on the window's error handler (the anchor's); returns the code when it returns.
int raise_on_win(MPI_Win anchor, const Status& s);

// Raises on a communicator's error handler (window creation errors).
int raise_on_comm(MPI_Comm comm, const Status& s);

// For handles that are not windows, and calls with no object: MPI_COMM_WORLD's handler.
int raise_no_object(const Status& s);

}  // namespace osprey::errors
