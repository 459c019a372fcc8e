// main() of the unit tests that need MPI initialized. MPICH initializes a process started
// without mpiexec as a singleton, so this binary runs on its own like the other unit tests.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
