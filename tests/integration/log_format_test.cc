// --log-format json on the three programs: every log line is one JSON object (time, level,
// logger, message), so a log shipper can parse them without a pattern.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Parses every line of `log` as a JSON log line of `logger`; returns the messages.
std::vector<std::string> JsonMessages(const std::string& log, const std::string& logger) {
  std::vector<std::string> messages;
  for (const std::string& line : Lines(log)) {
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "not JSON (" << e.what() << "): " << line;
      continue;
    }
    EXPECT_EQ(json["logger"], logger) << line;
    EXPECT_TRUE(json["time"].is_string()) << line;
    EXPECT_TRUE(json["level"].is_string()) << line;
    EXPECT_TRUE(json["message"].is_string()) << line;
    if (json["message"].is_string()) messages.push_back(json["message"]);
  }
  return messages;
}

bool AnyContains(const std::vector<std::string>& messages, const std::string& text) {
  for (const std::string& m : messages) {
    if (m.find(text) != std::string::npos) return true;
  }
  return false;
}

class JsonLogTest : public DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = DistributedTest::OrchestratorArgs();
    args.insert(args.end(), {"--log-format", "json", "--log-level", "debug"});
    return args;
  }
};

TEST_F(JsonLogTest, OrchestratorAndWorkersWriteOneJsonObjectPerLine) {
  StartWorkers(2, {"--log-format", "json", "--log-level", "debug"});
  client::Client client(orchestrator_->address());
  std::string id;
  EXPECT_EQ(RunJob(client, CarScenario(0.1), &id).state(), v1::SUCCEEDED);
  orchestrator_->process().Stop();
  for (auto& worker : workers_) worker->Stop();

  const std::vector<std::string> orchestrator =
      JsonMessages(orchestrator_->process().log(), "cosimo-orchestrator");
  EXPECT_TRUE(AnyContains(orchestrator, "attached")) << orchestrator_->process().log();
  EXPECT_TRUE(AnyContains(orchestrator, "shutting down")) << orchestrator_->process().log();
  for (auto& worker : workers_) {
    EXPECT_FALSE(JsonMessages(worker->log(), "cosimo-worker").empty()) << worker->log();
  }
}

TEST(JsonLogCliTest, CosimoRunWritesItsLogLinesAsJson) {
  const std::string dir = TempDir("cosimo-json-log");
  // Standard error alone in its file: that is where the log goes.
  Process run({"/bin/sh", "-c",
               "\"$0\" run \"$1\" --out \"$2\" --log-level info --log-format json 2>\"$3\"",
               BinDir() + "/cosimo", std::string(COSIMO_SOURCE_DIR) + "/examples/car.json",
               dir + "/car.csv", dir + "/stderr.log"},
              dir + "/stdout.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << ReadFile(dir + "/stderr.log");
  // Standard error also carries the progress lines and the closing message, which are not log
  // lines; every log line is JSON, and none is in the text pattern.
  std::string log;
  for (const std::string& line : Lines(ReadFile(dir + "/stderr.log"))) {
    EXPECT_NE(line.rfind("[20", 0), 0u) << "a text log line: " << line;
    if (line.rfind("{", 0) == 0) log += line + "\n";
  }
  // The run's orchestrator (in cosimo's own process, at its log level) says its workers attached.
  EXPECT_TRUE(AnyContains(JsonMessages(log, "cosimo"), "attached"))
      << ReadFile(dir + "/stderr.log");
}

TEST(JsonLogCliTest, AnUnknownFormatIsAUsageError) {
  const std::string dir = TempDir("cosimo-json-log");
  for (const std::string program : {"cosimo-orchestrator", "cosimo-worker"}) {
    Process p({BinDir() + "/" + program, "--log-format", "xml"}, dir + "/" + program + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 2) << p.log();
    EXPECT_NE(p.log().find("--log-format"), std::string::npos) << p.log();
  }
}

}  // namespace
}  // namespace cosimo::testing
