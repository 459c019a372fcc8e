// main() of the unit tests that need MPI initialized. MPICH initializes a process started
// without mpiexec as a singleton, so this binary runs on its own like the other unit tests.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // A forked death-test child inherits Open MPI's runtime threads mid-state and hangs; re-exec
  // gives it its own MPI_Init.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
