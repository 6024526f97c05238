#include "cli/src/cairo_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo::client {
namespace {

using ::testing::HasSubstr;

TEST(CairoApiTest, TheProcesssCairoDrawsOnASurface) {
  absl::StatusOr<const CairoApi*> cairo = Cairo();
  ASSERT_TRUE(cairo.ok()) << cairo.status();
  const CairoApi& c = **cairo;
  cairo_surface_t* surface = c.cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 3);
  cairo_t* cr = c.cairo_create(surface);
  c.cairo_set_source_rgb(cr, 1, 0, 0);
  c.cairo_paint(cr);
  c.cairo_surface_flush(surface);
  c.cairo_destroy(cr);
  c.cairo_surface_destroy(surface);
  // The same table on a second call: loaded once.
  absl::StatusOr<const CairoApi*> again = Cairo();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *cairo);
  EXPECT_EQ(c.cairo_status_to_string(CAIRO_STATUS_NO_MEMORY), std::string("out of memory"));
}

TEST(CairoApiTest, AMissingLibraryIsNamedWithItsPackage) {
  absl::StatusOr<CairoApi> cairo = LoadCairo("libcosimo-no-such-cairo.so.2");
  ASSERT_FALSE(cairo.ok());
  EXPECT_EQ(cairo.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(cairo.status().message());
  EXPECT_THAT(message, HasSubstr("PNG plots need the Cairo library libcosimo-no-such-cairo.so.2 "
                                 "(Debian package libcairo2)"));
  EXPECT_THAT(message, HasSubstr("cannot open shared object file"));
}

TEST(CairoApiTest, ALibraryWithoutCairosFunctionsNamesTheFirstMissing) {
  // libz is loaded in every test process (gRPC needs it) and exports no Cairo function.
  absl::StatusOr<CairoApi> cairo = LoadCairo("libz.so.1");
  ASSERT_FALSE(cairo.ok());
  EXPECT_THAT(std::string(cairo.status().message()),
              HasSubstr("libz.so.1 (Debian package libcairo2): it does not export cairo_arc"));
}

}  // namespace
}  // namespace cosimo::client
