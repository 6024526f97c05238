// The JSON log lines (cosimo/common/logging.h): one object per line, whatever the message holds.
#include "cosimo/common/logging.h"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>

#include <nlohmann/json.hpp>
#include <string>

namespace cosimo {
namespace {

nlohmann::json Format(spdlog::level::level_enum level, std::string_view message) {
  std::unique_ptr<spdlog::formatter> formatter = MakeJsonLogFormatter();
  spdlog::details::log_msg msg("cosimo-test", level,
                               spdlog::string_view_t(message.data(), message.size()));
  spdlog::memory_buf_t out;
  formatter->format(msg, out);
  const std::string line(out.data(), out.size());
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line, ended by a newline: " << line;
  return nlohmann::json::parse(line);
}

TEST(JsonLogTest, TheLineHoldsTimeLevelLoggerAndMessage) {
  const nlohmann::json line = Format(spdlog::level::warn, "unit 'plant' is slow");
  EXPECT_EQ(line["level"], "warning");
  EXPECT_EQ(line["logger"], "cosimo-test");
  EXPECT_EQ(line["message"], "unit 'plant' is slow");
  EXPECT_TRUE(line["pid"].is_number_integer());
  EXPECT_TRUE(line["thread"].is_number_integer());
  // ISO 8601 in UTC with milliseconds: 2026-12-03T09:57:00.123Z.
  const std::string time = line["time"];
  ASSERT_EQ(time.size(), 24u) << time;
  EXPECT_EQ(time[10], 'T');
  EXPECT_EQ(time[19], '.');
  EXPECT_EQ(time.back(), 'Z');
}

TEST(JsonLogTest, QuotesNewlinesAndControlCharactersAreEscaped) {
  const std::string message = "a \"quoted\" \\path\\\nsecond line\ttab \x01 end";
  const nlohmann::json line = Format(spdlog::level::info, message);
  EXPECT_EQ(line["message"], message);
}

TEST(JsonLogTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const nlohmann::json line = Format(spdlog::level::err, "fmu says \xff\xfe ok, caf\xc3\xa9");
  EXPECT_EQ(line["message"], "fmu says \xEF\xBF\xBD\xEF\xBF\xBD ok, caf\xc3\xa9");
}

TEST(JsonLogTest, UnknownLevelOrFormatIsNamed) {
  absl::Status s = SetUpLogging("cosimo-test", LogOptions{.level = "loud"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--log-level"), std::string::npos) << s;
  s = SetUpLogging("cosimo-test", LogOptions{.format = "xml"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--log-format"), std::string::npos) << s;
}

}  // namespace
}  // namespace cosimo
