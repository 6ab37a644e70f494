# precompiled_headers(TARGET HEADER…): TARGET, an object library of one empty file, precompiles
# HEADER… (<vector>, "/…/common/lesson/lesson.hpp") for other targets to take with
#   target_precompile_headers(OTHER REUSE_FROM TARGET)
# with the same compiler options as TARGET's (or the compiler ignores them and parses the headers
# as before: the same program either way).
function(precompiled_headers target)
  # The list goes through a header of its own, rewritten only when the list changes: CMake's
  # cmake_pch.hxx may keep an old time stamp when its text changes, and the precompiled
  # headers would then be older than a header added to the list.
  set(lines ${ARGN})
  list(TRANSFORM lines PREPEND "#include ")
  string(JOIN "\n" text ${lines})
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target})
  file(CONFIGURE OUTPUT ${dir}/headers.hpp CONTENT "${text}\n")
  file(CONFIGURE OUTPUT ${dir}/headers_only.cpp CONTENT "")
  add_library(${target} OBJECT EXCLUDE_FROM_ALL ${dir}/headers_only.cpp)
  target_precompile_headers(${target} PRIVATE ${dir}/headers.hpp)
endfunction()

# included_headers(VARIABLE [PROJECT] FILE…): the headers FILE… include from other projects,
# sorted: the standard library's (<vector>) and xtensor's, fmt's, CLI11's, doctest's
# (<xtensor/xview.hpp>);
# with PROJECT, also the project's own under common/ ("/…/common/attention/softmax.hpp").
# Headers of the system (<unistd.h>) and of one chapter (<mpi.h>) are left out.
function(included_headers variable)
  cmake_parse_arguments(PARSE_ARGV 1 INCLUDED "PROJECT" "" "")
  set(headers "")
  foreach(file IN LISTS INCLUDED_UNPARSED_ARGUMENTS)
    file(STRINGS ${file} includes REGEX "^#include [<\"]")
    foreach(line IN LISTS includes)
      if(line MATCHES "^#include <([a-z_]+|(xtensor|fmt|CLI|doctest)/[A-Za-z_]+\\.h(pp)?)>")
        list(APPEND headers "<${CMAKE_MATCH_1}>")
      elseif(INCLUDED_PROJECT AND line MATCHES "^#include \"(common/[a-z_]+/[^\"]+)\"")
        list(APPEND headers "\"${CMAKE_SOURCE_DIR}/${CMAKE_MATCH_1}\"")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES headers)
  list(SORT headers)
  set(${variable} ${headers} PARENT_SCOPE)
endfunction()
