# osprey_script(<name> <folder> <search>): a copy of tools/<name> in <folder> whose line
# `search="..."` (where the script looks for osprey's libraries or programs; in the source tree,
# its build folders) reads `search="<search>"` instead. <search> may use $here, the folder the
# script runs from.
function(osprey_script name folder search)
  set(source ${PROJECT_SOURCE_DIR}/tools/${name})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
  file(READ ${source} text)
  string(REGEX REPLACE "\nsearch=\"[^\n]*\"\n" "\nsearch=\"${search}\"\n" located "${text}")
  if(located STREQUAL text)
    message(FATAL_ERROR "tools/${name} has no line search=\"...\" to point at its folders")
  endif()
  string(MAKE_C_IDENTIFIER "${folder}" tag)
  set(draft ${PROJECT_BINARY_DIR}/CMakeFiles/osprey_scripts/${tag}/${name})
  file(WRITE ${draft} "${located}")
  # Copied only when it changed, so that installs of an unchanged build stay up to date.
  configure_file(${draft} ${folder}/${name} COPYONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
endfunction()
