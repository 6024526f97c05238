// A job's own log (issue 42): what its units say through the FMI logger and print on their
// standard output and error while they run in a worker is kept with the job, each line naming
// its unit and the simulated time of the call, and given by GetJobLogs (`cosimo logs JOB
// [--unit NAME]`); the worker's own terminal does not get it. `cosimo run` prints it after the
// progress, not through it. fmi2_chatty prints a banner when instantiated and, at the step that
// ends at 0.5 s, a logger warning, a stdout line and a stderr line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cosimo/client/client.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The lines of `lines` as `cosimo logs` prints them.
std::vector<std::string> Formatted(const std::vector<v1::LogEntry>& lines) {
  std::vector<std::string> out;
  for (const v1::LogEntry& line : lines) out.push_back(client::FormatLogLine(line));
  return out;
}

class JobLogTest : public DistributedTest {};

// Unit by unit: the FMU on one worker, the spring on another.
TEST_F(JobLogTest, AUnitsLoggerMessagesAndOutputAreTheJobsLogNotTheWorkers) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  ASSERT_EQ(RunJob(client, ChattyWithSpring(), &id).state(), v1::SUCCEEDED);

  absl::StatusOr<std::vector<v1::LogEntry>> lines = client.Logs(id);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), 4u) << ::testing::PrintToString(Formatted(*lines));
  const v1::LogEntry& banner = (*lines)[0];
  EXPECT_EQ(banner.source(), "stdout");
  EXPECT_EQ(banner.text(), "chatty banner: instance msd");
  // The step from 0.49 to 0.5: the logger's warning, then what it printed.
  const std::vector<std::vector<std::string>> expected = {
      {"fmi", "fmi2Warning", "logStatusWarning", "half way at t=0.5"},
      {"stdout", "", "", "chatty stdout at t=0.5"},
      {"stderr", "", "", "chatty stderr at t=0.5"}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const v1::LogEntry& line = (*lines)[i + 1];
    EXPECT_EQ(
        std::vector<std::string>({line.source(), line.status(), line.category(), line.text()}),
        expected[i]);
    EXPECT_NEAR(line.time(), 0.49, 1e-9) << line.ShortDebugString();
  }
  for (const v1::LogEntry& line : *lines) {
    EXPECT_EQ(line.job_id(), id);
    EXPECT_EQ(line.unit(), "msd");
    EXPECT_GT(line.unix_ms(), 0);
  }
  // A unit's lines alone; another unit has none.
  absl::StatusOr<std::vector<v1::LogEntry>> spring = client.Logs(id, "spring");
  ASSERT_TRUE(spring.ok()) << spring.status();
  EXPECT_TRUE(spring->empty());
  // Not on the workers' own terminals.
  for (const auto& worker : workers_) {
    EXPECT_THAT(worker->log(), Not(HasSubstr("chatty"))) << worker->log();
  }
  // `cosimo logs JOB --unit msd` prints them.
  Process logs({BinDir() + "/cosimo", "logs", id, "--unit", "msd", "--orchestrator",
                orchestrator_->address()},
               dir_ + "/logs.log");
  ASSERT_EQ(logs.Wait(std::chrono::seconds(60)), 0) << logs.log();
  EXPECT_THAT(logs.log(), HasSubstr(" stderr: chatty stderr at t=0.5\n"));
  EXPECT_THAT(logs.log(), HasSubstr(" fmi2Warning [logStatusWarning] half way at t=0.5\n"));
  // An unknown job is named.
  absl::StatusOr<std::vector<v1::LogEntry>> none = client.Logs("job-none");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound) << none.status();
}

// `cosimo run` (its master in the worker): the log after the progress, in its own block.
TEST_F(JobLogTest, CosimoRunPrintsTheLogAfterTheProgress) {
  Process run({BinDir() + "/cosimo", "run", Fmu("fmi2_chatty"), "--stop-time", "1", "--step",
               "0.01", "--out", dir_ + "/chatty.csv"},
              dir_ + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  const std::string log = run.log();
  const size_t block = log.find("the units' log (4 lines):\n");
  ASSERT_NE(block, std::string::npos) << log;
  // Every chatty line is in the block, none before it (through the progress).
  EXPECT_EQ(log.find("chatty"), log.find("chatty", block)) << log;
  EXPECT_THAT(log.substr(block), HasSubstr(" stdout: chatty stdout at t=0.5\n"));
  EXPECT_THAT(log.substr(block), HasSubstr(" stderr: chatty stderr at t=0.5\n"));
  EXPECT_LT(log.find("SUCCEEDED"), block) << log;
}

}  // namespace
}  // namespace cosimo::testing
