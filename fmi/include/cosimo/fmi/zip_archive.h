// Owning handles for libzip archives and entries, and libzip's error text, for the readers of
// zip archives (the worker's FMU unpacking, the client's SSP import). Header-only: its users link
// libzip themselves (pkg-config libzip). Archives are opened read-only: closing discards.
#pragma once

#include <zip.h>

#include <memory>
#include <string>

namespace cosimo {

struct ZipCloser {
  void operator()(zip_t* archive) const {
    if (archive != nullptr) zip_discard(archive);
  }
};
struct ZipFileCloser {
  void operator()(zip_file_t* file) const {
    if (file != nullptr) zip_fclose(file);
  }
};
using ZipArchive = std::unique_ptr<zip_t, ZipCloser>;
using ZipEntry = std::unique_ptr<zip_file_t, ZipFileCloser>;

// libzip's text for an error code of zip_open.
inline std::string ZipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

}  // namespace cosimo
