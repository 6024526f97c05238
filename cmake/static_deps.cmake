# Start-up (issue 40): a program linked against Debian's shared gRPC, protobuf and Abseil (some 70
# libraries, 64 of them Abseil's) spent 25-30 ms of CPU in the dynamic loader alone, relocating
# and looking up their symbols, three times over for `cosimo run` (the CLI, the orchestrator and
# a worker). Debian ships the same libraries' static archives (libgrpc-dev, libprotobuf-dev,
# libabsl-dev, libc-ares-dev, libre2-dev): linked from them, a program starts in about half the
# CPU time (`perf stat cosimo-worker --help`: 30-32 -> 13-15 ms). OpenSSL, zlib, SQLite, libzip,
# pugixml, spdlog and fmt stay shared (security updates by apt; no static spdlog or libzip in
# Debian); the sanitizer build of tests/fuzz keeps everything shared.
option(COSIMO_STATIC_DEPS "Link gRPC, protobuf and Abseil from their static archives" ON)

# Points every imported gRPC, protobuf, Abseil, c-ares and RE2 library target found so far at the
# static archive beside its shared library, where Debian has one. Every target of the project
# then links them statically (tests and benchmarks too: no program mixes a static and a shared
# copy of one library, which would register protobuf's descriptors twice).
function(cosimo_use_static_archives)
  if(NOT COSIMO_STATIC_DEPS OR COSIMO_FUZZ_BUILD)
    return()
  endif()
  get_property(targets DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTY IMPORTED_TARGETS)
  set(converted 0)
  foreach(target IN LISTS targets)
    if(NOT target MATCHES "^(absl|gRPC|protobuf|c-ares)::" OR target STREQUAL "protobuf::protoc"
       OR target STREQUAL "gRPC::grpc_cpp_plugin")
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(SHARED|UNKNOWN)_LIBRARY$")
      continue()
    endif()
    foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_NONE IMPORTED_LOCATION_RELEASE
                     IMPORTED_LOCATION_NOCONFIG)
      get_target_property(location ${target} ${property})
      # ${CMAKE_MATCH_1} is read when the if's arguments are, before its MATCHES: two ifs.
      if(location MATCHES "^(.*/lib[^/]+)\\.so(\\.[0-9.]+)?$")
        set(archive "${CMAKE_MATCH_1}.a")
        if(EXISTS "${archive}")
          set_target_properties(${target} PROPERTIES ${property} "${archive}")
          math(EXPR converted "${converted} + 1")
        endif()
      endif()
    endforeach()
  endforeach()
  # RE2 comes from pkg-config as -lre2, which the linker resolves to the shared library.
  if(TARGET re2::re2 AND EXISTS /usr/lib/x86_64-linux-gnu/libre2.a)
    set_property(TARGET re2::re2 PROPERTY INTERFACE_LINK_LIBRARIES
                                          /usr/lib/x86_64-linux-gnu/libre2.a)
  endif()
  message(STATUS "Static archives for ${converted} imported library locations (COSIMO_STATIC_DEPS)")
endfunction()
