# A rank killed mid-epoch (hidden from the launcher, so that only osprey can end the job): rank
# 0, waiting for it, aborts the job within 10 s with a message naming the dead rank, and the
# dead rank leaves nothing in /dev/shm.
add_executable(rank_death mpi/rank_death.c)
target_include_directories(rank_death PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
target_link_libraries(rank_death PRIVATE MPI::MPI_C)
set(_death "osprey: rank [0-9]+ \\(process [0-9]+\\) on this node has exited")
foreach(point lock fence pscw)
  osprey_mpi_variant(death.${point} rank_death ARGS ${point} EXPECT_ABORT "${_death}" WITHIN 10)
endforeach()
# A get waits for the dead rank's reply only on the message path.
osprey_mpi_variant(death.flush rank_death ARGS flush MODES am EXPECT_ABORT "${_death}" WITHIN 10)
