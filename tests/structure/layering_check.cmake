# The configure-time layering check (cmake/layering.cmake) on the probe project beside this file:
# it passes on the allowed links and fails, naming both ends, on each broken rule.
#   cmake -DSOURCE_DIR=<tree> -DWORK_DIR=<scratch folder> -P layering_check.cmake
set(probe_dir ${SOURCE_DIR}/tests/structure/layering)
# probe:expected text of the failure ("" for a configure that must pass)
set(cases
    "none:"
    "worker_links_orchestrator:probe_worker (worker/) links probe_orchestrator (orchestrator/)"
    "orchestrator_links_worker_through_another:links probe_worker (worker/)"
    "common_links_cli:probe_common (common/) links probe_cli (cli/)"
    "domain_links_rpc:probe_common links cosimo_rpc: the domain libraries link no gRPC")
foreach(case ${cases})
  string(FIND "${case}" ":" colon)
  string(SUBSTRING "${case}" 0 ${colon} probe)
  math(EXPR start "${colon} + 1")
  string(SUBSTRING "${case}" ${start} -1 expected)
  file(REMOVE_RECURSE ${WORK_DIR}/${probe})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${probe_dir} -B ${WORK_DIR}/${probe} -DPROBE=${probe}
            -DCOSIMO_LAYERING=${SOURCE_DIR}/cmake/layering.cmake
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " err "${err}")  # CMake wraps its messages
  if(expected STREQUAL "")
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "probe ${probe}: the allowed links failed the configure: ${err}")
    endif()
  elseif(result EQUAL 0)
    message(FATAL_ERROR "probe ${probe}: the configure passed; expected it to fail: ${expected}")
  else()
    string(FIND "${err}" "${expected}" found)
  endif()
  if(NOT expected STREQUAL "" AND found EQUAL -1)
    message(FATAL_ERROR "probe ${probe}: failed without naming '${expected}': ${err}")
  endif()
  message(STATUS "probe ${probe}: ok")
endforeach()
