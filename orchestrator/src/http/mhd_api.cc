#include "orchestrator/src/http/mhd_api.h"

#include "absl/strings/str_cat.h"

namespace cosimo::orchestrator::http {
namespace {

absl::Status Missing(const std::string& soname, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("the HTTP port needs the library ", soname,
                                                    " (Debian package libmicrohttpd12): ", why));
}

}  // namespace

absl::StatusOr<MhdApi> LoadMhd(const std::string& soname) {
  absl::StatusOr<std::unique_ptr<SharedLibrary>> library = SharedLibrary::Open(soname);
  if (!library.ok()) return Missing(soname, library.status().message());
  MhdApi api;
#define COSIMO_MHD_RESOLVE(name) \
  if (!(*library)->Resolve(#name, api.name)) return Missing(soname, "it does not export " #name);
  COSIMO_MHD_FUNCTIONS(COSIMO_MHD_RESOLVE)
#undef COSIMO_MHD_RESOLVE
  api.library = std::move(*library);
  return api;
}

absl::StatusOr<const MhdApi*> Mhd() {
  static const absl::StatusOr<MhdApi> api = LoadMhd("libmicrohttpd.so.12");
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace cosimo::orchestrator::http
