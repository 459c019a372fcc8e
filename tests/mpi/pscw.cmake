# Generalized active target on shared memory.
osprey_mpi_test(pscw_ring mpi/pscw_ring.c)
osprey_mpi_test(pscw_patterns mpi/pscw_patterns.c)
osprey_mpi_test(errors_pscw mpi/errors_pscw.c)
