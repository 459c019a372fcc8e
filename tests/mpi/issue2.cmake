# Foundation: windows of every flavor, put/get/fence, attributes, errors.
osprey_mpi_test(put_get_types mpi/put_get_types.c)
