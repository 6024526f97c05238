// The clients' tokens file (--tokens-file): names, tokens and admins, comments, and every
// malformed line named by its number without quoting a token.
#include "orchestrator/src/tokens_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo::orchestrator {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(TokensFileTest, ReadsClientsAndAdminsSkippingComments) {
  absl::StatusOr<std::vector<ClientToken>> clients = ParseTokens(
      "# name token [admin]\n"
      "\n"
      "alice   alice-token-0123456789\n"
      "  ops\tops-token-0123456789abc  admin  \r\n"
      "ci.bot@example  ci+token/0123456789==\n",
      "tokens");
  ASSERT_TRUE(clients.ok()) << clients.status();
  ASSERT_EQ(clients->size(), 3u);
  EXPECT_EQ((*clients)[0].name, "alice");
  EXPECT_EQ((*clients)[0].token, "alice-token-0123456789");
  EXPECT_FALSE((*clients)[0].admin);
  EXPECT_EQ((*clients)[1].name, "ops");
  EXPECT_TRUE((*clients)[1].admin);
  EXPECT_EQ((*clients)[2].name, "ci.bot@example");
  EXPECT_EQ((*clients)[2].token, "ci+token/0123456789==");
}

TEST(TokensFileTest, MalformedLinesAreNamedWithoutTheirToken) {
  const std::string good = "alice alice-token-0123456789\n";
  struct Case {
    std::string text, says;
  } cases[] = {
      {good + "bob\n", "tokens:2: expected 'NAME TOKEN' or 'NAME TOKEN admin' (1 words"},
      {good + "bob bob-token-0123456789 root\n", "tokens:2: expected 'NAME TOKEN'"},
      {"b/ob bob-token-0123456789\n", "tokens:1: the name 'b/ob' is not 1 to 64 of"},
      {"bob short\n", "tokens:1: the token of 'bob' has 5 characters; at least 16"},
      {good + "alice other-token-0123456789\n", "tokens:2: the name 'alice' is given twice"},
      {good + "bob alice-token-0123456789\n", "tokens:2: the token of 'bob' is another client's"},
      {"# nobody\n\n", "names no client"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<ClientToken>> clients = ParseTokens(c.text, "tokens");
    ASSERT_FALSE(clients.ok()) << c.text;
    EXPECT_EQ(clients.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(clients.status().message()),
                AllOf(HasSubstr("--tokens-file"), HasSubstr(c.says), Not(HasSubstr("0123456789"))))
        << c.text;
  }
  absl::StatusOr<std::vector<ClientToken>> missing = ReadTokensFile("/nonexistent/tokens");
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("--tokens-file: cannot read '/nonexistent/tokens'"));
}

}  // namespace
}  // namespace cosimo::orchestrator
