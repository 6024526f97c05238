# Fails when a C or C++ source of the tree differs from what clang-format makes of it with the
# project's one .clang-format. Run as: cmake -DSOURCE_DIR=<root> -DCLANG_FORMAT=<exe> -P this.
foreach(dir common fmi ssp units master worker orchestrator cli bench tests)
  file(GLOB_RECURSE found ${SOURCE_DIR}/${dir}/*.cc ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.c)
  list(APPEND sources ${found})
endforeach()
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${sources}
                RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "clang-format: these sources need formatting "
                      "(run: clang-format -i <file>):\n${errors}")
endif()
list(LENGTH sources count)
message(STATUS "clang-format: ${count} sources formatted")
