# cmake --install <build> --prefix <P>: the library, its headers, osprey-run, osprey-info, a
# CMake package and pkg-config files. Both flavors (MPICH, Open MPI) install into one prefix side
# by side: what exists per flavor is named after it, and what both install (headers, scripts,
# the package's config file) is the same whichever installs it; osprey.pc, the one file that
# names a flavor, says MPICH's whenever MPICH's is in the prefix (cmake/osprey-default-pc.cmake).
include(CMakePackageConfigHelpers)

set(OSPREY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/osprey)
set(OSPREY_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(_staged ${PROJECT_BINARY_DIR}/CMakeFiles/osprey_install)
# How the installed programs reach the library.
file(RELATIVE_PATH OSPREY_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})

install(TARGETS osprey EXPORT osprey-${OSPREY_FLAVOR}-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/osprey DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Programs. osprey-info-<flavor> of the build folder reaches the library through ../lib: the
# installed one is that program when the installation's bin and lib lie alike, else a second
# build of it.
if(OSPREY_BIN_TO_LIB STREQUAL "../lib")
  install(TARGETS osprey-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
else()
  osprey_info_program(osprey-info-installed ${_staged}/bin
                      ${OSPREY_BIN_TO_LIB}/${OSPREY_LIBRARY_FILE})
  install(TARGETS osprey-info-installed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
osprey_script(osprey-run ${_staged}/bin "$here/${OSPREY_BIN_TO_LIB}")
install(PROGRAMS ${_staged}/bin/osprey-run ${CMAKE_BINARY_DIR}/bin/osprey-info
        DESTINATION ${CMAKE_INSTALL_BINDIR})

# CMake package: find_package(osprey) (cmake/osprey-config.cmake) includes the targets file of
# every flavor present, each defining osprey::<flavor>.
install(EXPORT osprey-${OSPREY_FLAVOR}-targets NAMESPACE osprey:: DESTINATION ${OSPREY_CMAKE_DIR})
# Before 1.0 a minor version may change what osprey accepts.
write_basic_package_version_file(${_staged}/osprey-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/osprey-config.cmake
              ${_staged}/osprey-config-version.cmake DESTINATION ${OSPREY_CMAKE_DIR})

# pkg-config: osprey-<flavor>.pc, and osprey.pc, which requires one of them. Paths are relative
# to the .pc file's folder, so the prefix given at install time holds.
if(OSPREY_FLAVOR STREQUAL mpich)
  set(OSPREY_HOST_NAME MPICH)
else()
  set(OSPREY_HOST_NAME "Open MPI")
endif()
set(_pc_dir ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH OSPREY_PC_PREFIX ${_pc_dir} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" OSPREY_PC_PREFIX "${OSPREY_PC_PREFIX}")
file(RELATIVE_PATH OSPREY_PC_LIBDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH OSPREY_PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/osprey-flavor.pc.in
               ${_staged}/osprey-${OSPREY_FLAVOR}.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/osprey.pc.in ${_staged}/osprey.pc @ONLY)
install(FILES ${_staged}/osprey-${OSPREY_FLAVOR}.pc DESTINATION ${OSPREY_PKGCONFIG_DIR})
install(CODE "set(OSPREY_FLAVOR ${OSPREY_FLAVOR})
              set(OSPREY_PKGCONFIG_DIR \"${OSPREY_PKGCONFIG_DIR}\")
              set(OSPREY_DEFAULT_PC \"${_staged}/osprey.pc\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/osprey-default-pc.cmake)
