#include "cairo_api.h"

#include "absl/strings/str_cat.h"

namespace cosimo::client {
namespace {

absl::Status Missing(const std::string& soname, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("PNG plots need the Cairo library ", soname,
                                                    " (Debian package libcairo2): ", why));
}

}  // namespace

absl::StatusOr<CairoApi> LoadCairo(const std::string& soname) {
  absl::StatusOr<std::unique_ptr<SharedLibrary>> library = SharedLibrary::Open(soname);
  if (!library.ok()) return Missing(soname, library.status().message());
  CairoApi api;
#define COSIMO_CAIRO_RESOLVE(name) \
  if (!(*library)->Resolve(#name, api.name)) return Missing(soname, "it does not export " #name);
  COSIMO_CAIRO_FUNCTIONS(COSIMO_CAIRO_RESOLVE)
#undef COSIMO_CAIRO_RESOLVE
  api.library = std::move(*library);
  return api;
}

absl::StatusOr<const CairoApi*> Cairo() {
  static const absl::StatusOr<CairoApi> api = LoadCairo("libcairo.so.2");
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace cosimo::client
