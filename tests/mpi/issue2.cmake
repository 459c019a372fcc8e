# Foundation: windows of every flavor, put/get/fence, attributes, errors.
osprey_mpi_test(put_get_types mpi/put_get_types.c)
osprey_mpi_test(fence_epochs mpi/fence_epochs.c)
osprey_mpi_test(shared_query mpi/shared_query.c)
osprey_mpi_test(dynamic_windows mpi/dynamic_windows.c)
osprey_mpi_test(errors_fence mpi/errors_fence.c)
osprey_mpi_test(errors_fatal mpi/errors_fatal.c NP 2 PASS_REGEX "osprey: target rank is outside the window's group")
osprey_mpi_test(attributes mpi/attributes.c)
osprey_mpi_test(zero_size mpi/zero_size.c)
osprey_mpi_test(derived_types mpi/derived_types.c)
osprey_mpi_test(many_windows mpi/many_windows.c NP 2)

# The demo: a fence-epoch histogram that checks it lost no sample.
osprey_mpi_test(histogram_demo ../../examples/histogram.c PASS_REGEX "samples: .* ok")
