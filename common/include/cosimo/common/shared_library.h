// A shared object loaded with dlopen(RTLD_NOW | RTLD_LOCAL): every symbol is resolved at load
// time (a missing dependency is reported then, naming it) and none leaks into the global scope
// (exported FMUs often export hundreds of internal symbols). Unloaded on destruction. Used for
// FMU binaries and for the optional libraries a program loads only when a verb or flag needs
// them (Cairo for PNG plots, libmicrohttpd for --http), so that every other start skips their
// relocation.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace cosimo {

class SharedLibrary {
 public:
  // `path`: a file path, or a soname that the dynamic linker searches (libcairo.so.2). Errors
  // (kFailedPrecondition) carry dlerror()'s text, which names the missing file or dependency.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SharedLibrary>> Open(const std::string& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& path() const { return path_; }
  // nullptr when the library does not export `name`.
  void* Symbol(const std::string& name) const;
  // Sets `function` (a function pointer, typed as `decltype(&::name)` from the library's header)
  // to the exported `name`; false, and nullptr, when the library does not export it.
  template <typename FunctionPointer>
  bool Resolve(const std::string& name, FunctionPointer& function) const {
    function = reinterpret_cast<FunctionPointer>(Symbol(name));
    return function != nullptr;
  }

 private:
  SharedLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  std::string path_;
  void* handle_;
};

// Loads the optional library `soname` and fills a table of its functions: `Api` holds the
// function pointers and `std::shared_ptr<const SharedLibrary> library`, which keeps them loaded;
// `bind(library, api)` resolves each pointer and returns the name of the first the library does
// not export, or nullptr. Errors (kFailedPrecondition): "<needs> <soname> (Debian package
// <package>): " and dlerror()'s text or "it does not export <name>".
template <typename Api, typename Bind>
absl::StatusOr<Api> LoadFunctions(const std::string& soname, absl::string_view needs,
                                  absl::string_view package, Bind bind) {
  const auto missing = [&](absl::string_view why) {
    return absl::FailedPreconditionError(
        absl::StrCat(needs, " ", soname, " (Debian package ", package, "): ", why));
  };
  absl::StatusOr<std::unique_ptr<SharedLibrary>> library = SharedLibrary::Open(soname);
  if (!library.ok()) return missing(library.status().message());
  Api api;
  if (const char* name = bind(**library, api); name != nullptr) {
    return missing(absl::StrCat("it does not export ", name));
  }
  api.library = std::move(*library);
  return api;
}

}  // namespace cosimo
