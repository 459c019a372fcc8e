# Windows of every flavor: creation, put/get with every datatype, fence epochs, attributes,
# info, shared memory queries, errors, windows on subcommunicators.
osprey_mpi_test(put_get_types mpi/put_get_types.c)
osprey_mpi_test(fence_epochs mpi/fence_epochs.c)
osprey_mpi_test(fence_asserts mpi/fence_asserts.c NP 2 3 4)
osprey_mpi_test(fence_visibility mpi/fence_visibility.c NP 2 3 4)
osprey_mpi_test(shared_query mpi/shared_query.c)
osprey_mpi_test(dynamic_windows mpi/dynamic_windows.c)
# Range errors of every kind of operation told by the call or the flush that completes it.
osprey_mpi_test(range_errors_told mpi/range_errors_told.c)
osprey_mpi_test(errors_fence mpi/errors_fence.c)
osprey_mpi_test(errors_fatal mpi/errors_fatal.c NP 2
                EXPECT_ABORT "osprey: target rank is outside the window's group \\(MPI_ERR_RANK\\)")
osprey_mpi_test(attributes mpi/attributes.c)
osprey_mpi_test(zero_size mpi/zero_size.c)
osprey_mpi_test(derived_types mpi/derived_types.c)
# Strided target layouts built fresh per operation or reused: put, get, accumulate racing
# single-element fetch_and_op.
osprey_mpi_test(strided_types mpi/strided_types.c)
osprey_mpi_test(type_recreate mpi/type_recreate.c)
osprey_mpi_test(type_constructors mpi/type_constructors.c)
# Freed types kept and handed back by a constructor called alike (datatype/type_pool.h).
osprey_mpi_test(type_reuse mpi/type_reuse.c LABELS threaded)
target_link_libraries(type_reuse PRIVATE pthread)
# A type in use in one thread while another decodes types built on it (the host's contents
# query hands back its handle, which osprey frees again).
osprey_mpi_test(type_decode_race mpi/type_decode_race.c NP 2 LABELS threaded)
target_link_libraries(type_decode_race PRIVATE pthread)
osprey_mpi_test(many_windows mpi/many_windows.c NP 2)
osprey_mpi_test(window_no_memory mpi/window_no_memory.c)
# Large counts: overflow refused, large-count datatypes, one transfer past 2 GiB.
osprey_mpi_test(large_counts mpi/large_counts.c NP 2)
# The host out of communicators: window creation fails cleanly, and works once some are freed
# (it fails before any path is chosen; with simulated nodes the host needs 30 s for the dups).
osprey_mpi_test(host_limits mpi/host_limits.c NP 2 MODES auto am)

osprey_mpi_test(subcomm_windows mpi/subcomm_windows.c NP 3 4)

# The demo: a fence-epoch histogram that checks it lost no sample.
osprey_mpi_variant(histogram_demo histogram VERDICT "^histogram \\[.*samples: .* ok$")
osprey_mpi_test(proc_null mpi/proc_null.c)
# MPICH's other simulated-node layout: ranks in blocks (0,1 | 2,3).
osprey_mpi_variant(cliques.subcomm_windows subcomm_windows NP 4 MODES auto
                   ENV MPIR_CVAR_NUM_CLIQUES=2)
# The tests of node peers' private memory below keep it private (OSPREY_SHARE_IN_PLACE=0: no
# pages moved into shared memory), with a variant of some where pages may move.
# Windows over private memory on a node: small puts and gets queued per target until the
# synchronization, completed by each kind of synchronization (also with the queue off, and
# with a tiny limit so that most operations go straight after draining the queue).
osprey_mpi_test(cma_batch mpi/cma_batch.c NP 2 3 ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(noqueue.cma_batch cma_batch NP 3 MODES auto ENV OSPREY_CMA_QUEUE_LIMIT=0 OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(tinyqueue.cma_batch cma_batch NP 2 MODES auto
                   ENV OSPREY_CMA_QUEUE_LIMIT=4 OSPREY_SHARE_IN_PLACE=0)
# Large puts and gets toward node peers' private memory: queued gets of any size merging into
# one range, checked byte by byte after every kind of synchronization.
osprey_mpi_test(cma_large mpi/cma_large.c NP 2 3 ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(noqueue.cma_large cma_large NP 2 MODES auto
                   ENV OSPREY_CMA_QUEUE_LIMIT=0 OSPREY_SHARE_IN_PLACE=0)
# Whole-region accumulates over cross-memory attach against single-element atomics.
osprey_mpi_test(cma_acc_race mpi/cma_acc_race.c NP 2 3 4 ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(inplace.cma_acc_race cma_acc_race NP 3 MODES auto)
# MPI_Alloc_mem memory is node-shared: windows over it (mixed with malloc memory) mapped by
# node peers, atomics racing across mapped, cross-memory attach and message-path origins.
osprey_mpi_test(alloc_mem_windows mpi/alloc_mem_windows.c NP 2 3 4)
# Fence's node barrier with the waits of an oversubscribed node, forced at 2 ranks.
osprey_mpi_variant(forced.fence_epochs fence_epochs NP 2 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
# The message path's fence as larger windows run it: a dissemination barrier after a flush,
# instead of fence marks.
osprey_mpi_variant(barrier.fence_epochs fence_epochs NP 3 MODES am mixed
                   ENV OSPREY_FENCE_MARK_RANKS=1)
osprey_mpi_variant(barrier.fence_visibility fence_visibility NP 4 MODES am mixed
                   ENV OSPREY_FENCE_MARK_RANKS=1)
# Accumulates toward node peers' private memory under fence and PSCW, left in the target's
# staging area: sums against fetch_and_op, the order of one origin's operations, an area that
# fills (and one with room for everything), the result read in the next epoch.
osprey_mpi_test(acc_stage mpi/acc_stage.c NP 2 3 4 ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(inplace.acc_stage acc_stage NP 3 MODES auto)
osprey_mpi_variant(bigstage.acc_stage acc_stage NP 3 MODES auto
                   ENV OSPREY_ACC_STAGE=1048576 OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(forced.acc_stage acc_stage NP 3 MODES auto
                   ENV OSPREY_OVERSUBSCRIBED=1 OSPREY_SHARE_IN_PLACE=0)
# Puts (fence and PSCW), gets and accumulates with results (fence) toward node peers' private
# memory, left in the target's staging area: rows written and read back in pieces around the
# staging limit, fetch_and_op old values each seen once, get_accumulate sums in order, a strided
# accumulate in between; an area too small for most of it; staging limits of 1 and 8 KiB.
osprey_mpi_test(stage_put_get mpi/stage_put_get.c NP 2 3 4 ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(tinystage.stage_put_get stage_put_get NP 3 MODES auto ENV OSPREY_ACC_STAGE=1024 OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(opmax1k.stage_put_get stage_put_get NP 3 MODES auto ENV OSPREY_STAGE_OP_MAX=1024 OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_variant(opmax8k.stage_put_get stage_put_get NP 3 MODES auto ENV OSPREY_STAGE_OP_MAX=8192 OSPREY_SHARE_IN_PLACE=0)
# MPI_Win_create over malloc blocks, aligned pages, heap, static and stack arrays, nested and
# overlapping windows: pages moved into shared memory in place (where safe) keep every byte,
# take every origin's operations, and come back with the data at MPI_Win_free.
osprey_mpi_test(create_in_place mpi/create_in_place.c NP 2 3 4)
target_link_libraries(create_in_place PRIVATE pthread)
osprey_mpi_variant(threads.create_in_place create_in_place NP 2 MODES auto LABELS threaded)
osprey_mpi_variant(cma.create_in_place create_in_place NP 3 MODES auto ENV OSPREY_SHARE_IN_PLACE=0)
# Dynamic windows over attached memory moved into shared memory at attach, MPI_Alloc_mem
# memory, private memory, and accesses across two regions; attach and detach over many rounds.
osprey_mpi_test(dynamic_shared mpi/dynamic_shared.c NP 2 3 4)
osprey_mpi_test(dynamic_reattach mpi/dynamic_reattach.c NP 2 4)
osprey_mpi_variant(cma.dynamic_shared dynamic_shared NP 3 MODES auto ENV OSPREY_SHARE_IN_PLACE=0)
# Small operations toward node peers' private memory, served by the target or taken back and
# applied by cross-memory attach, racing each other and whole-region accumulates. Forced not
# oversubscribed (which leaves nothing to the target) at 3 and 4 ranks too; and as it comes.
osprey_mpi_test(served_race mpi/served_race.c NP 2 3 4
                ENV OSPREY_SHARE_IN_PLACE=0 OSPREY_OVERSUBSCRIBED=0)
osprey_mpi_variant(auto.served_race served_race NP 3 MODES auto ENV OSPREY_SHARE_IN_PLACE=0)
# A region detached while a small put or get toward it waits for the flush: the flush reports
# MPI_ERR_RMA_RANGE whether the target refuses it (served) or cross-memory attach fails.
osprey_mpi_test(served_detached mpi/served_detached.c NP 2 MODES auto am
                ENV OSPREY_SHARE_IN_PLACE=0 OSPREY_OVERSUBSCRIBED=0)
osprey_mpi_variant(cma.served_detached served_detached NP 2 MODES auto
                   ENV OSPREY_SHARE_IN_PLACE=0 OSPREY_OVERSUBSCRIBED=1)
