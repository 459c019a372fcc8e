# Generalized active target on shared memory.
osprey_mpi_test(pscw_ring mpi/pscw_ring.c)
osprey_mpi_test(pscw_patterns mpi/pscw_patterns.c)
osprey_mpi_test(errors_pscw mpi/errors_pscw.c)
osprey_mpi_test(pscw_last_op mpi/pscw_last_op.c NP 2 4)
# The waits of an oversubscribed node (doorbells on post and complete) forced at 2 ranks.
osprey_mpi_variant(forced.pscw_ring pscw_ring NP 2 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
osprey_mpi_variant(forced.pscw_patterns pscw_patterns NP 2 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
