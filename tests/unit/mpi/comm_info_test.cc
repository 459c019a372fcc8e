// The private communicator osprey keeps per user communicator reports host failures of
// osprey's own messages through its handler, whatever handler the user's communicator has: a
// failure ends the process with a message instead of passing unseen.
#include "rma/comm_info.h"

#include <gtest/gtest.h>
#include <mpi.h>

namespace osprey::rma {
namespace {

// The info of a fresh communicator whose handler returns errors.
CommInfo* info_of_erring_comm(MPI_Comm* user) {
  PMPI_Comm_dup(MPI_COMM_SELF, user);
  PMPI_Comm_set_errhandler(*user, MPI_ERRORS_RETURN);
  CommInfo* ci = nullptr;
  return CommInfo::acquire(*user, &ci).ok() ? ci : nullptr;
}

TEST(CommInfo, PrivateCommunicatorIgnoresTheUsersErrorsReturn) {
  MPI_Comm user;
  CommInfo* ci = info_of_erring_comm(&user);
  ASSERT_NE(ci, nullptr);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(ci->priv(), &eh);
  EXPECT_EQ(eh, CommInfo::private_errhandler());
  PMPI_Errhandler_free(&eh);
  ci->release();
  PMPI_Comm_free(&user);
}

TEST(CommInfoDeathTest, AHostFailureOfOspreysMessagesEndsTheProcess) {
  MPI_Comm user;
  CommInfo* ci = info_of_erring_comm(&user);
  ASSERT_NE(ci, nullptr);
  int v = 0;
  // A send to a rank the communicator does not have: the host fails it.
  EXPECT_DEATH(PMPI_Send(&v, 1, MPI_INT, 7, 0, ci->priv()),
               "osprey: the host MPI failed a call of osprey's own messages");
  ci->release();
  PMPI_Comm_free(&user);
}

}  // namespace
}  // namespace osprey::rma
