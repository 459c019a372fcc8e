// The optional progress thread (OSPREY_PROGRESS_THREAD=1): runs the progress engine in the
// background so that a target busy computing, outside any MPI call, still serves requests.
// It needs MPI_THREAD_MULTIPLE from the host; without it osprey says so and runs none.
#pragma once

namespace osprey::progress {

void start_thread();
void stop_thread();

}  // namespace osprey::progress
