// CheckJson: the size and depth limits and every JSON error say where they are, and nothing
// throws (a number overflow escaped as an uncaught exception; a million nested lists kept
// protobuf's parser busy for over an hour).
#include "cosimo/common/json_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/scenario.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(JsonCheckTest, AcceptsValidJsonWithBracketsInStrings) {
  EXPECT_TRUE(CheckJson(R"({"a": [1, 2.5, -3e10, "[[[{{\"]]", true, null], "b": {}})", "x",
                        JsonLimits{1000, 3})
                  .ok());
}

TEST(JsonCheckTest, DeepNestingIsRefusedWithItsPosition) {
  const std::string deep =
      "{\n\"a\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  absl::Status s = CheckJson(deep, "scenario");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("scenario nests objects and lists deeper than 64 levels at "
                                    "line 2, column 69"));
  // The limit itself is allowed.
  EXPECT_TRUE(CheckJson(std::string(64, '[') + std::string(64, ']'), "x").ok());
  EXPECT_FALSE(CheckJson(std::string(65, '[') + std::string(65, ']'), "x").ok());
}

TEST(JsonCheckTest, TooLargeIsRefusedBeforeParsing) {
  absl::Status s = CheckJson(std::string(2000, ' '), "scenario", JsonLimits{1000, 64});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("scenario is 2000 bytes of JSON, more than the limit of 1000"));
}

TEST(JsonCheckTest, NumberOverflowIsAnErrorWithItsPosition) {
  absl::Status s = CheckJson("{\n  \"algorithm\": {\"step_size\": 1e400}\n}", "scenario");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("number overflow"));
  EXPECT_THAT(Message(s), HasSubstr("1e400"));
  EXPECT_THAT(Message(s), HasSubstr("line 2, column"));
}

TEST(JsonCheckTest, SyntaxErrorsSayWhere) {
  absl::Status s = CheckJson("{\n  \"a\": [1,\n  }", "scenario");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("scenario is not valid JSON: "));
  EXPECT_THAT(Message(s), HasSubstr("line 3"));
  EXPECT_FALSE(CheckJson("", "x").ok());
  EXPECT_FALSE(CheckJson("\"unterminated", "x").ok());
}

// Through ParseScenarioJson: the checks come before protobuf's parser.
TEST(JsonCheckTest, ScenarioParsingRefusesOverflowAndDepth) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"algorithm": {"step_size": 1e400}})");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s.status()), HasSubstr("number overflow"));
  s = ParseScenarioJson(R"({"units": [{"name": "a", "parameters": {"p": )" +
                        std::string(200000, '[') + std::string(200000, ']') + "}}]}");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s.status()), HasSubstr("deeper than 64 levels"));
}

}  // namespace
}  // namespace cosimo
