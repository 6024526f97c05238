#include "cosimo/common/shared_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace cosimo {

absl::StatusOr<std::unique_ptr<SharedLibrary>> SharedLibrary::Open(const std::string& path) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load ", path, ": ", error != nullptr ? error : "unknown error"));
  }
  return std::unique_ptr<SharedLibrary>(new SharedLibrary(path, handle));
}

SharedLibrary::~SharedLibrary() { dlclose(handle_); }

void* SharedLibrary::Symbol(const std::string& name) const { return dlsym(handle_, name.c_str()); }

}  // namespace cosimo
