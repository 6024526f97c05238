// A shared object loaded with dlopen(RTLD_NOW | RTLD_LOCAL): every symbol is resolved at load
// time (a missing dependency is reported then, naming it) and none leaks into the global scope
// (exported FMUs often export hundreds of internal symbols). Unloaded on destruction.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace cosimo::units::fmu {

class SharedLibrary {
 public:
  // Errors carry dlerror()'s text, which names a missing dependency.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SharedLibrary>> Open(const std::string& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& path() const { return path_; }
  // nullptr when the library does not export `name`.
  void* Symbol(const std::string& name) const;

 private:
  SharedLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  std::string path_;
  void* handle_;
};

}  // namespace cosimo::units::fmu
