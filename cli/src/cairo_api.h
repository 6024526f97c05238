// Cairo, loaded when a PNG plot is first drawn rather than at every start of `cosimo`: linked,
// libcairo and what it pulls in (pixman, fontconfig, freetype, libpng, X11 and xcb: 20 of the
// program's 43 shared libraries) cost every verb some 10 ms of CPU in the dynamic linker before
// main. The header gives the functions' types; the process resolves them from libcairo.so.2.
#pragma once

#include <cairo.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/common/shared_library.h"

namespace cosimo::client {

// The Cairo functions plot_file.cc calls.
#define COSIMO_CAIRO_FUNCTIONS(X) \
  X(cairo_arc)                    \
  X(cairo_create)                 \
  X(cairo_destroy)                \
  X(cairo_fill_preserve)          \
  X(cairo_image_surface_create)   \
  X(cairo_line_to)                \
  X(cairo_move_to)                \
  X(cairo_new_path)               \
  X(cairo_paint)                  \
  X(cairo_restore)                \
  X(cairo_rotate)                 \
  X(cairo_save)                   \
  X(cairo_select_font_face)       \
  X(cairo_set_font_size)          \
  X(cairo_set_line_join)          \
  X(cairo_set_line_width)         \
  X(cairo_set_source_rgb)         \
  X(cairo_set_source_rgba)        \
  X(cairo_show_text)              \
  X(cairo_status_to_string)       \
  X(cairo_stroke)                 \
  X(cairo_surface_destroy)        \
  X(cairo_surface_flush)          \
  X(cairo_surface_write_to_png)   \
  X(cairo_text_extents)           \
  X(cairo_translate)

struct CairoApi {
#define COSIMO_CAIRO_POINTER(name) decltype(&::name) name = nullptr;
  COSIMO_CAIRO_FUNCTIONS(COSIMO_CAIRO_POINTER)
#undef COSIMO_CAIRO_POINTER
  std::shared_ptr<const SharedLibrary> library;  // keeps the functions loaded
};

// Loads `soname` and resolves every function above. Errors (kFailedPrecondition) name the
// library, the Debian package that has it, and dlerror()'s text or the missing function
// (LoadFunctions).
[[nodiscard]] absl::StatusOr<CairoApi> LoadCairo(const std::string& soname);

// The process's Cairo (libcairo.so.2), loaded on the first call and kept; thread-safe.
[[nodiscard]] absl::StatusOr<const CairoApi*> Cairo();

}  // namespace cosimo::client
