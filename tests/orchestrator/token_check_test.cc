// The token check on its own (token_check.h): the scheme of an Authorization value is
// case-insensitive and may be followed by several spaces (RFC 9110 sections 11.1 and 11.4), the
// token itself is not; each token names its holder.
#include "orchestrator/src/token_check.h"

#include <gtest/gtest.h>

#include <string>

namespace cosimo::orchestrator {
namespace {

bool Accepts(const TokenCheck& check, const std::string& authorization) {
  return check.AcceptsAuthorization(grpc::string_ref(authorization));
}

// Issue 41 item 11: "Authorization: bearer <token>" got 401.
TEST(TokenCheckTest, TheSchemeOfACallsAuthorizationIsCaseInsensitive) {
  const TokenCheck check("s3cret-token");
  for (const char* accepted : {"Bearer s3cret-token", "bearer s3cret-token", "BEARER s3cret-token",
                               "bEaReR s3cret-token", "bearer   s3cret-token"}) {
    EXPECT_TRUE(Accepts(check, accepted)) << accepted;
  }
  for (const char* refused : {"Bearer S3CRET-TOKEN", "bearer s3cret-token ", "bearers3cret-token",
                              "Basic s3cret-token", "s3cret-token", "bearer ", "bearer"}) {
    EXPECT_FALSE(Accepts(check, refused)) << refused;
  }
}

TEST(TokenCheckTest, EachTokenNamesItsHolder) {
  TokenCheck check;
  EXPECT_TRUE(Accepts(check, "anything")) << "no token: every call passes";
  check.Add("alice", "alice-token", /*admin=*/false);
  check.Add("ops", "ops-token", /*admin=*/true);
  std::optional<Caller> alice = check.Identify(grpc::string_ref(std::string("bearer alice-token")));
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_FALSE(alice->admin);
  std::optional<Caller> ops = check.Identify(grpc::string_ref(std::string("BEARER ops-token")));
  ASSERT_TRUE(ops.has_value());
  EXPECT_TRUE(ops->admin);
  EXPECT_FALSE(check.Identify(grpc::string_ref(std::string("Bearer eve-token"))).has_value());
}

}  // namespace
}  // namespace cosimo::orchestrator
