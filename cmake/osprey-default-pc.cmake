# Install step: osprey.pc (pkg-config's "osprey", without a host) means MPICH's flavor whenever
# it is installed in the prefix, else Open MPI's, whichever order the two were installed in:
# MPICH's install always writes it, Open MPI's only where MPICH's is absent.
# Set by the install code before: OSPREY_FLAVOR, OSPREY_PKGCONFIG_DIR, OSPREY_DEFAULT_PC.
set(_dir ${OSPREY_PKGCONFIG_DIR})
if(NOT IS_ABSOLUTE "${_dir}")
  set(_dir "${CMAKE_INSTALL_PREFIX}/${_dir}")
endif()
if(OSPREY_FLAVOR STREQUAL "mpich" OR NOT EXISTS "$ENV{DESTDIR}${_dir}/osprey-mpich.pc")
  file(INSTALL DESTINATION "${_dir}" TYPE FILE FILES "${OSPREY_DEFAULT_PC}")
else()
  message(STATUS "Kept: $ENV{DESTDIR}${_dir}/osprey.pc (MPICH's flavor is installed)")
endif()
