#include "cairo_api.h"

namespace cosimo::client {

absl::StatusOr<CairoApi> LoadCairo(const std::string& soname) {
  return LoadFunctions<CairoApi>(soname, "PNG plots need the Cairo library", "libcairo2",
                                 [](const SharedLibrary& library, CairoApi& api) -> const char* {
#define COSIMO_CAIRO_RESOLVE(name) \
  if (!library.Resolve(#name, api.name)) return #name;
                                   COSIMO_CAIRO_FUNCTIONS(COSIMO_CAIRO_RESOLVE)
#undef COSIMO_CAIRO_RESOLVE
                                   return nullptr;
                                 });
}

absl::StatusOr<const CairoApi*> Cairo() {
  static const absl::StatusOr<CairoApi> api = LoadCairo("libcairo.so.2");
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace cosimo::client
