# The message path: large transfers, thousands of outstanding operations, floods, busy targets,
# a counter updated over both paths, and the same under the smallest resources.
osprey_mpi_test(am_large mpi/am_large.c)
osprey_mpi_test(am_outstanding mpi/am_outstanding.c)
osprey_mpi_test(am_flood mpi/am_flood.c)
osprey_mpi_test(am_busy_target mpi/am_busy_target.c)
# Blocking point-to-point while serving requests: data, statuses and errors as the host's own.
osprey_mpi_test(blocking_status mpi/blocking_status.c NP 2 4)
osprey_mpi_test(am_mixed_counter mpi/am_mixed_counter.c NP 3)
osprey_mpi_variant(vnodes.am_mixed_counter am_mixed_counter NP 3 MODES auto
                   ENV OSPREY_VIRTUAL_NODES=2)

# Every pool of one element, one slot: the operation table must clean up aggressively.
set(_tiny_pools "OSPREY_OP_POOL_LOCAL=1;OSPREY_OP_POOL_GLOBAL=0;OSPREY_TARGET_POOL_LOCAL=1;OSPREY_TARGET_POOL_GLOBAL=0;OSPREY_SLOTS=1")
osprey_mpi_variant(pool1.am_outstanding am_outstanding MODES am ENV ${_tiny_pools})
osprey_mpi_variant(pool1.lockall_flush lockall_flush MODES am mixed NP 3 4 ENV ${_tiny_pools})
osprey_mpi_variant(pool1.acc_counters acc_counters MODES am NP 2 ENV ${_tiny_pools})
osprey_mpi_variant(pool1.pscw_ring pscw_ring MODES am ENV ${_tiny_pools})
osprey_mpi_variant(pool1.pscw_last_op pscw_last_op MODES am NP 3 ENV ${_tiny_pools})
# The smallest credit settings: two receive slots, one credit per peer, nothing banked.
set(_tiny_credits "OSPREY_RECV_SLOTS=2;OSPREY_CREDITS_PER_PEER=1;OSPREY_BANKED_CREDITS=0;OSPREY_EAGER_LIMIT=64")
osprey_mpi_variant(credits.am_flood am_flood MODES am ENV ${_tiny_credits})
osprey_mpi_variant(credits.am_large am_large MODES am ENV ${_tiny_credits})
osprey_mpi_variant(credits.cas_mutex cas_mutex MODES am ENV ${_tiny_credits})
# Ranks joined by a network: the host's messages over loopback TCP (MPICH's UCX; its own shared
# memory off), every peer on another (pretend) node. The whole job must also finish: ranks that
# closed their endpoints one after the other left MPICH's MPI_Finalize spinning in UCX (about
# half the runs of these two hung there).
if(OSPREY_HOST_MPI STREQUAL "MPICH")
  set(_tcp "MPIR_CVAR_NOLOCAL=1;UCX_TLS=tcp,self;OSPREY_VIRTUAL_NODES=2")
  osprey_mpi_variant(tcp.am_flood am_flood MODES am NP 2 ENV ${_tcp})
  osprey_mpi_variant(tcp.am_put_batch am_put_batch MODES am NP 2 ENV ${_tcp})
endif()
# A computing target served by the progress thread.
osprey_mpi_variant(thread.am_busy_target am_busy_target MODES am ENV OSPREY_PROGRESS_THREAD=1
                   LABELS threaded)
osprey_mpi_test(epoch_data mpi/epoch_data.c)
osprey_mpi_test(type_cache mpi/type_cache.c)
# Threads contending for pools of one element and for one credit per peer.
osprey_mpi_variant(pool1.thread_interleavings thread_interleavings MODES am mixed
                   ENV ${_tiny_pools} LABELS threaded)
osprey_mpi_variant(credits.thread_interleavings thread_interleavings MODES am
                   ENV ${_tiny_credits} LABELS threaded)
# Short operations batched in front of the request that follows them: order, data, atomicity
# against single-element atomics, fence epochs; also with the smallest slots and pools.
osprey_mpi_test(am_batch mpi/am_batch.c)
osprey_mpi_variant(credits.am_batch am_batch MODES am ENV ${_tiny_credits})
osprey_mpi_variant(pool1.am_batch am_batch MODES am NP 3 ENV ${_tiny_pools})
# Small puts and accumulates as batch records: order against the operations queued behind them,
# more records than a request holds, atomicity against other origins, a lone one as a request of
# its own, every synchronization; also with the smallest credits and pools.
osprey_mpi_test(am_records mpi/am_records.c)
osprey_mpi_variant(credits.am_records am_records MODES am ENV ${_tiny_credits})
osprey_mpi_variant(pool1.am_records am_records MODES am NP 3 ENV ${_tiny_pools})
# One short operation, then a flush: sent without the general path (Window::am_express_flush);
# every size around its limits read back, accumulates racing other origins, compare_and_swap,
# fetch_and_op and get_accumulate with every fetched value known, lock epochs; also with the
# smallest credits (replies of gets past the eager limit come apart) and pools.
osprey_mpi_test(am_lone_flush mpi/am_lone_flush.c)
osprey_mpi_variant(credits.am_lone_flush am_lone_flush MODES am ENV ${_tiny_credits})
osprey_mpi_variant(pool1.am_lone_flush am_lone_flush MODES am NP 3 ENV ${_tiny_pools})
# Gets batched: every size and synchronization, data and the gaps between them checked byte
# by byte, mixed with puts and accumulates; also with the smallest credits and pools.
osprey_mpi_test(am_get_batch mpi/am_get_batch.c)
osprey_mpi_variant(credits.am_get_batch am_get_batch MODES am ENV ${_tiny_credits})
osprey_mpi_variant(pool1.am_get_batch am_get_batch MODES am NP 3 ENV ${_tiny_pools})
# Every target on another (pretend) node: large batched gets reply in messages of their own.
osprey_mpi_variant(vnodes.am_get_batch am_get_batch MODES am ENV OSPREY_VIRTUAL_NODES=2)
# Puts batched by reference: every size around the limits and every synchronization, data and
# the gaps between places checked byte by byte, the same place put twice, origin buffers reused
# after flush_local, an error among good puts; also with the smallest credits and pools.
osprey_mpi_test(am_put_batch mpi/am_put_batch.c)
osprey_mpi_variant(credits.am_put_batch am_put_batch MODES am ENV ${_tiny_credits})
osprey_mpi_variant(pool1.am_put_batch am_put_batch MODES am NP 3 ENV ${_tiny_pools})
# Every target on another (pretend) node: large puts by reference travel in messages of their own.
osprey_mpi_variant(vnodes.am_put_batch am_put_batch MODES am ENV OSPREY_VIRTUAL_NODES=2)
# Batched gets whose origin ranges overlap: the reply is copied, never scattered by the host
# through a receive type with overlapping entries.
osprey_mpi_test(am_get_same_buffer mpi/am_get_same_buffer.c)
# Payloads and get data toward another node in pieces the host sends eagerly: every layout and
# size around the piece counts, in every setting (the host's cliques in mixed) and toward
# pretend nodes, also with pieces that cut elements (and payloads of more than 64 bytes sent
# apart from their requests).
osprey_mpi_test(am_remote_pieces mpi/am_remote_pieces.c NP 2 4)
osprey_mpi_variant(vnodes.am_remote_pieces am_remote_pieces MODES am ENV OSPREY_VIRTUAL_NODES=2)
osprey_mpi_variant(piece1000.am_remote_pieces am_remote_pieces MODES am
                   ENV OSPREY_VIRTUAL_NODES=2 OSPREY_REMOTE_PIECE=1000 OSPREY_EAGER_LIMIT=64)
