# find_package(osprey [version] [COMPONENTS mpich openmpi]) gives, for each flavor of osprey
# installed in this prefix, the imported target osprey::mpich (libosprey-mpich.so) or
# osprey::openmpi (libosprey-openmpi.so), and osprey::osprey: the first component asked for,
# else MPICH's flavor when it is installed, else Open MPI's (as pkg-config's osprey.pc).
# osprey_HOST_MPI says which (mpich or openmpi). Link osprey before the host MPI, with the MPI
# of the same flavor:
#   target_link_libraries(prog PRIVATE osprey::osprey MPI::MPI_C)
# Each flavor's install adds its targets file beside this one, and this file is the same for
# both, so installing one flavor never disturbs the other.
set(osprey_FLAVORS "")
foreach(_osprey_mpi mpich openmpi)
  set(osprey_${_osprey_mpi}_FOUND FALSE)
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/osprey-${_osprey_mpi}-targets.cmake")
    if(NOT TARGET osprey::${_osprey_mpi})
      include("${CMAKE_CURRENT_LIST_DIR}/osprey-${_osprey_mpi}-targets.cmake")
    endif()
    set(osprey_${_osprey_mpi}_FOUND TRUE)
    list(APPEND osprey_FLAVORS ${_osprey_mpi})
  endif()
endforeach()

set(osprey_HOST_MPI "")
foreach(_osprey_mpi ${osprey_FIND_COMPONENTS})
  if(NOT osprey_${_osprey_mpi}_FOUND)
    set(osprey_${_osprey_mpi}_FOUND FALSE)
    if(osprey_FIND_REQUIRED_${_osprey_mpi})
      set(osprey_FOUND FALSE)
      set(osprey_NOT_FOUND_MESSAGE "osprey for '${_osprey_mpi}' is not installed in \
${CMAKE_CURRENT_LIST_DIR} (installed: ${osprey_FLAVORS}; components: mpich, openmpi)")
    endif()
  elseif(NOT osprey_HOST_MPI)
    set(osprey_HOST_MPI ${_osprey_mpi})
  endif()
endforeach()
if(NOT osprey_HOST_MPI AND osprey_FLAVORS)
  list(GET osprey_FLAVORS 0 osprey_HOST_MPI)
endif()
if(NOT osprey_HOST_MPI)
  set(osprey_FOUND FALSE)
  set(osprey_NOT_FOUND_MESSAGE "no flavor of osprey is installed in ${CMAKE_CURRENT_LIST_DIR}")
elseif(NOT TARGET osprey::osprey)
  add_library(osprey::osprey INTERFACE IMPORTED)
  set_target_properties(osprey::osprey PROPERTIES INTERFACE_LINK_LIBRARIES
                                                  osprey::${osprey_HOST_MPI})
endif()
unset(_osprey_mpi)
