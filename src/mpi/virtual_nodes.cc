// Tests only: with OSPREY_VIRTUAL_NODES=k, osprey pretends each node is k nodes (rma/comm_info.h).
// Programs learn who shares their memory from MPI_Comm_split_type, so it must tell the same
// story, as MPICH's simulated nodes do: ranks in other pretend nodes share no memory. Only the
// MPI_ name is defined; osprey's own PMPI_ calls see the real node.
#include "mpi/binding.h"
#include "rma/comm_info.h"

OSPREY_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                      MPI_Comm* newcomm) {
  const int part = osprey::rma::virtual_node();
  // Every split type but MPI_UNDEFINED groups ranks within a node (shared memory, or parts of
  // it where the host offers them): none may span pretend nodes.
  if (split_type == MPI_UNDEFINED || part < 0)
    return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  MPI_Comm node = MPI_COMM_NULL;
  if (int rc = PMPI_Comm_split_type(comm, split_type, key, info, &node); rc) return rc;
  int node_rank = 0;
  PMPI_Comm_rank(node, &node_rank);
  const int rc = PMPI_Comm_split(node, part, node_rank, newcomm);  // keeps the key order
  PMPI_Comm_free(&node);
  return rc;
}
