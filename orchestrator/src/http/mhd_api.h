// GNU libmicrohttpd, loaded when the HTTP port is first started (--http) rather than at every
// start of a program that links the orchestrator (cosimo-orchestrator, and `cosimo run`, whose
// orchestrator is in its own process): linked, libmicrohttpd and GnuTLS with what it pulls in
// (nettle, gmp, p11-kit, libidn2, libunistring, libtasn1, libffi) are relocated before main by
// every start. The header gives the functions' types; the process resolves them from
// libmicrohttpd.so.12.
#pragma once

#include <microhttpd.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/common/shared_library.h"

namespace cosimo::orchestrator::http {

// The libmicrohttpd functions mhd_server.cc calls.
#define COSIMO_MHD_FUNCTIONS(X)      \
  X(MHD_add_response_header)         \
  X(MHD_create_response_from_buffer) \
  X(MHD_destroy_response)            \
  X(MHD_get_connection_info)         \
  X(MHD_get_connection_values)       \
  X(MHD_is_feature_supported)        \
  X(MHD_queue_response)              \
  X(MHD_start_daemon)                \
  X(MHD_stop_daemon)

struct MhdApi {
#define COSIMO_MHD_POINTER(name) decltype(&::name) name = nullptr;
  COSIMO_MHD_FUNCTIONS(COSIMO_MHD_POINTER)
#undef COSIMO_MHD_POINTER
  std::shared_ptr<const SharedLibrary> library;  // keeps the functions loaded
};

// Loads `soname` and resolves every function above. Errors (kFailedPrecondition) name the
// library, the Debian package that has it, and dlerror()'s text or the missing function
// (LoadFunctions).
[[nodiscard]] absl::StatusOr<MhdApi> LoadMhd(const std::string& soname);

// The process's libmicrohttpd (libmicrohttpd.so.12), loaded on the first call and kept;
// thread-safe.
[[nodiscard]] absl::StatusOr<const MhdApi*> Mhd();

}  // namespace cosimo::orchestrator::http
