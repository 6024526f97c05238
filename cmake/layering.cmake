# The layering the build enforces (docs/architecture.md, "The folders"): each top-level folder is
# one concept and its targets link only targets of the folders before it, checked at configure
# time over every target a target links, directly or through others.
#
#   proto <- common <- fmi <- {ssp, units} <- master <- {worker, orchestrator} <- cli <- bench
#
# A folder may link its own targets and those of any earlier layer; folders of one layer (ssp and
# units, worker and orchestrator) never link each other. Targets outside these
# folders (tests/, python/, imported packages) are not checked. And the domain libraries build on
# the protobuf messages only: gRPC (the stubs of cosimo_proto, grpc++) is for the RPC layers.
#
# cosimo_check_layering(LAYERS <layer>... [DOMAIN <target>...])
#   each <layer> is a folder name or several joined by "|" (peers); targets are found by their
#   SOURCE_DIR below CMAKE_SOURCE_DIR. Fails the configure naming the target, what it links and
#   both folders. tests/structure/layering/ tests it on a small project that breaks each rule.

# Every target `target` links, directly or through other targets, appended to the list `out`.
function(cosimo_linked_targets target out)
  set(seen ${${out}})
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libs ${target} ${property})
    if(NOT libs)
      continue()
    endif()
    foreach(lib ${libs})
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
      if(TARGET ${lib} AND NOT lib IN_LIST seen)
        list(APPEND seen ${lib})
        cosimo_linked_targets(${lib} seen)
      endif()
    endforeach()
  endforeach()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Every target defined in `dir` and the folders below it, appended to the list `out`.
function(cosimo_targets_below dir out)
  set(found ${${out}})
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  list(APPEND found ${targets})
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    cosimo_targets_below(${sub} found)
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The top-level folder of a target's sources ("" when not below CMAKE_SOURCE_DIR).
function(cosimo_target_folder target out)
  get_target_property(imported ${target} IMPORTED)
  set(folder "")
  if(NOT imported)
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${dir})
    if(NOT rel MATCHES "^\\.\\.")
      string(REGEX REPLACE "/.*" "" folder "${rel}")
    endif()
  endif()
  set(${out} "${folder}" PARENT_SCOPE)
endfunction()

function(cosimo_check_layering)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LAYERS;DOMAIN")
  # The layer index of every folder named.
  set(index 0)
  foreach(layer ${arg_LAYERS})
    string(REPLACE "|" ";" folders "${layer}")
    foreach(folder ${folders})
      set(layer_of_${folder} ${index})
    endforeach()
    math(EXPR index "${index} + 1")
  endforeach()
  set(targets)
  cosimo_targets_below(${CMAKE_SOURCE_DIR} targets)
  foreach(target ${targets})
    cosimo_target_folder(${target} folder)
    if(NOT DEFINED layer_of_${folder})
      continue()
    endif()
    set(linked)
    cosimo_linked_targets(${target} linked)
    foreach(lib ${linked})
      cosimo_target_folder(${lib} lib_folder)
      if(NOT DEFINED layer_of_${lib_folder} OR lib_folder STREQUAL folder)
        continue()
      endif()
      if(NOT layer_of_${lib_folder} LESS layer_of_${folder})
        message(FATAL_ERROR "${target} (${folder}/) links ${lib} (${lib_folder}/): a folder links "
                            "only the folders before it (cmake/layering.cmake, "
                            "docs/architecture.md)")
      endif()
    endforeach()
  endforeach()
  foreach(domain ${arg_DOMAIN})
    if(NOT TARGET ${domain})
      continue()
    endif()
    set(linked)
    cosimo_linked_targets(${domain} linked)
    foreach(rpc cosimo_proto cosimo_rpc gRPC::grpc++ gRPC::grpc)
      if(rpc IN_LIST linked)
        message(FATAL_ERROR "${domain} links ${rpc}: the domain libraries link no gRPC "
                            "(cmake/layering.cmake, docs/architecture.md)")
      endif()
    endforeach()
  endforeach()
endfunction()
