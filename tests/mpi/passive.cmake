# Passive target and atomics on shared memory.
osprey_mpi_test(acc_counters mpi/acc_counters.c NP 2 3 4)
osprey_mpi_test(cas_mutex mpi/cas_mutex.c)
osprey_mpi_test(lock_exclusion mpi/lock_exclusion.c)
# The lone exclusive locker on another node than its target, whose own rank and a node peer
# stream shared locks on shared memory: the target must serve it from its unlocks.
osprey_mpi_variant(remote.lock_exclusion lock_exclusion NP 4 MODES mixed)
osprey_mpi_test(lockall_flush mpi/lockall_flush.c)
# Requests served while a rank spins on flushes with nothing outstanding.
osprey_mpi_test(flush_progress mpi/flush_progress.c NP 2 3)
osprey_mpi_test(acc_ordering mpi/acc_ordering.c)
osprey_mpi_test(acc_exclusive mpi/acc_exclusive.c)
osprey_mpi_test(self_lock mpi/self_lock.c)
osprey_mpi_test(errors_passive mpi/errors_passive.c)
osprey_mpi_test(threaded_acc mpi/threaded_acc.c LABELS threaded)
target_link_libraries(threaded_acc PRIVATE pthread)
# Each accumulate applied as a whole, against single-element atomics and across paths.
osprey_mpi_test(acc_whole mpi/acc_whole.c NP 2 3 4)
# ... also large ones, which are combined in chunks (cross-memory attach), racing each other.
osprey_mpi_test(acc_whole_large mpi/acc_whole_large.c NP 2 3)
osprey_mpi_variant(cma.acc_whole_large acc_whole_large NP 3 MODES auto ENV OSPREY_SHARE_IN_PLACE=0)
osprey_mpi_test(linked_list mpi/linked_list.c NP 2 3 4)
# Accumulates on many elements (plain loops) against single-element atomics on the same elements.
osprey_mpi_test(acc_bulk_race mpi/acc_bulk_race.c NP 2 3)
osprey_mpi_variant(crowded.acc_bulk_race acc_bulk_race NP 4 MODES auto)
target_link_libraries(acc_bulk_race PRIVATE pthread)
osprey_mpi_variant(threads.acc_bulk_race acc_bulk_race NP 2 ARGS threads LABELS threaded)
# Request-based operations with every completion call, also where blocking calls are not
# interposed (waits still run progress).
osprey_mpi_test(requests mpi/requests.c)
osprey_mpi_variant(nointerpose.requests requests MODES am mixed ENV OSPREY_INTERPOSE_BLOCKING=0)
osprey_mpi_test(op_type_matrix mpi/op_type_matrix.c NP 1 2)
osprey_mpi_variant(cliques.linked_list linked_list NP 4 MODES auto ENV MPIR_CVAR_NUM_CLIQUES=2)
# Every interleaving of RMA calls from threads the standard allows (MPI_THREAD_MULTIPLE).
osprey_mpi_test(thread_interleavings mpi/thread_interleavings.c LABELS threaded)
target_link_libraries(thread_interleavings PRIVATE pthread)
# Issue 12's loop (lock_all, Win_sync, barriers, one operation and flush) with more ranks than
# cores: auto-detected on a 2-CPU machine, forced at 2 ranks and with blocking calls interposed,
# and the old waits (forced off) at 3.
osprey_mpi_test(oversub_mix mpi/oversub_mix.c NP 3 4)
osprey_mpi_variant(forced.oversub_mix oversub_mix NP 2 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
# MPI_Barrier (on shared memory when oversubscribed) still completes pending host sends.
osprey_mpi_test(barrier_progress mpi/barrier_progress.c NP 2 3 MODES auto)
osprey_mpi_variant(forced.barrier_progress barrier_progress NP 2 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
osprey_mpi_variant(interpose.oversub_mix oversub_mix NP 3 MODES auto ENV OSPREY_INTERPOSE_BLOCKING=1)
osprey_mpi_variant(unforced.oversub_mix oversub_mix NP 3 MODES auto ENV OSPREY_OVERSUBSCRIBED=0
                   ARGS 60)
osprey_mpi_variant(forced.lock_exclusion lock_exclusion NP 2 4 MODES auto ENV OSPREY_OVERSUBSCRIBED=1)
