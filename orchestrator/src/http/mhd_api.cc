#include "orchestrator/src/http/mhd_api.h"

namespace cosimo::orchestrator::http {

absl::StatusOr<MhdApi> LoadMhd(const std::string& soname) {
  return LoadFunctions<MhdApi>(soname, "the HTTP port needs the library", "libmicrohttpd12",
                               [](const SharedLibrary& library, MhdApi& api) -> const char* {
#define COSIMO_MHD_RESOLVE(name) \
  if (!library.Resolve(#name, api.name)) return #name;
                                 COSIMO_MHD_FUNCTIONS(COSIMO_MHD_RESOLVE)
#undef COSIMO_MHD_RESOLVE
                                 return nullptr;
                               });
}

absl::StatusOr<const MhdApi*> Mhd() {
  static const absl::StatusOr<MhdApi> api = LoadMhd("libmicrohttpd.so.12");
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace cosimo::orchestrator::http
