// The private communicator osprey keeps per user communicator reports host failures of
// osprey's own messages through its handler, whatever handler the user's communicator has: a
// failure ends the process with a message instead of passing unseen.
#include "rma/comm_info.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "progress/oversub.h"
#include "util/config.h"

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

// The node's decision is made when a communicator's info is set up: one rank on at least one
// CPU is not oversubscribed, unless forced; a lone rank needs no barrier of its own.
TEST(CommInfo, SetupDecidesOversubscriptionForTheProcess) {
  progress::set_oversubscribed_for_tests(false);
  MPI_Comm user;
  CommInfo* ci = info_of_erring_comm(&user);
  ASSERT_NE(ci, nullptr);
  EXPECT_FALSE(progress::oversubscribed());
  EXPECT_FALSE(ci->has_node_barrier());
  ci->release();
  PMPI_Comm_free(&user);

  setenv("OSPREY_OVERSUBSCRIBED", "1", 1);
  reload_config_for_tests();
  ci = info_of_erring_comm(&user);
  ASSERT_NE(ci, nullptr);
  EXPECT_TRUE(progress::oversubscribed());
  EXPECT_FALSE(ci->has_node_barrier());  // one rank: the host's barrier returns at once
  ci->release();
  PMPI_Comm_free(&user);
  unsetenv("OSPREY_OVERSUBSCRIBED");
  reload_config_for_tests();
  progress::set_oversubscribed_for_tests(false);
}

}  // namespace
}  // namespace osprey::rma
