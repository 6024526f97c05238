// libmicrohttpd loaded on demand (orchestrator/src/http/mhd_api.h): the process's library
// resolves every function; a missing library or one without the functions is named with its
// Debian package. (http_server_test.cc and tests/integration/http_test.cc serve through it.)
#include "orchestrator/src/http/mhd_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo::orchestrator::http {
namespace {

using ::testing::HasSubstr;

TEST(MhdApiTest, TheProcesssLibraryIsLoadedOnceWithEveryFunction) {
  absl::StatusOr<const MhdApi*> mhd = Mhd();
  ASSERT_TRUE(mhd.ok()) << mhd.status();
#define COSIMO_EXPECT_RESOLVED(name) EXPECT_NE((*mhd)->name, nullptr) << #name;
  COSIMO_MHD_FUNCTIONS(COSIMO_EXPECT_RESOLVED)
#undef COSIMO_EXPECT_RESOLVED
  // A call through the table: Debian's build has TLS (GnuTLS), as the --http-tls flags need.
  EXPECT_EQ((*mhd)->MHD_is_feature_supported(MHD_FEATURE_TLS), MHD_YES);
  absl::StatusOr<const MhdApi*> again = Mhd();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *mhd);
}

TEST(MhdApiTest, AMissingLibraryIsNamedWithItsPackage) {
  absl::StatusOr<MhdApi> mhd = LoadMhd("libcosimo-no-such-microhttpd.so.12");
  ASSERT_FALSE(mhd.ok());
  EXPECT_EQ(mhd.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(mhd.status().message()),
              HasSubstr("the HTTP port needs the library libcosimo-no-such-microhttpd.so.12 "
                        "(Debian package libmicrohttpd12): "));
  EXPECT_THAT(std::string(mhd.status().message()), HasSubstr("cannot open shared object file"));
}

TEST(MhdApiTest, ALibraryWithoutItsFunctionsNamesTheFirstMissing) {
  absl::StatusOr<MhdApi> mhd = LoadMhd("libz.so.1");
  ASSERT_FALSE(mhd.ok());
  EXPECT_THAT(std::string(mhd.status().message()),
              HasSubstr("libz.so.1 (Debian package libmicrohttpd12): it does not export "
                        "MHD_add_response_header"));
}

}  // namespace
}  // namespace cosimo::orchestrator::http
