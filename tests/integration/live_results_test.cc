// A running job's rows so far (issue 42), on a real orchestrator and workers, the master in the
// worker (one worker with a slot per unit: RunJob) and in the orchestrator (two workers): the
// car runs far longer than the test, its rows so far are read through GetResults (all of them,
// from a row on, the last one), `cosimo results --partial`, `cosimo watch --follow` and the JSON
// API while it runs; then it is canceled, and the same car run to a stop time past every row
// read gives the results these must be a prefix of, byte for byte (the rows of a fixed-step run
// do not depend on its stop time before it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/common/csv.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

// Last: through <resolv.h> it defines the macro _res, a parameter name in Eigen's headers.
#include <httplib.h>

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The car of examples/ at a macro step of 0.01 s, its vehicle integrated at 1e-4 s (slow enough
// that the rows of the few seconds a test reads stay small), run to `stop_time`.
v1::Scenario SlowCar(double stop_time) {
  v1::Scenario car = CarScenario(0.01);
  car.set_stop_time(stop_time);
  return car;
}

// Param: the master runs in the worker (true) or in the orchestrator.
class LiveResultsTest : public HttpPortTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    HttpPortTest::SetUp();
    if (HasFatalFailure()) return;
    if (GetParam()) {
      StartWorkers(1, {"--slots", "2"});
    } else {
      StartWorkers(2);
    }
  }

  // Reads the running job's rows so far until there are at least `rows` of them.
  client::JobResults RowsSoFar(client::Client& client, const std::string& id, size_t rows) {
    client::JobResults r;
    for (int i = 0; i < 1200 && r.rows() < rows; ++i) {
      absl::StatusOr<client::JobResults> read =
          client.Results(id, client::ResultsRequest{.partial = true});
      if (read.ok()) r = *std::move(read);
      if (r.rows() < rows) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return r;
  }

  // The car's results run to `stop_time`, as CSV; `id` the job's.
  std::string FinishedCsv(client::Client& client, double stop_time, std::string* id) {
    EXPECT_EQ(RunJob(client, SlowCar(stop_time), id).state(), v1::SUCCEEDED);
    absl::StatusOr<client::JobResults> r = client.Results(*id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Csv(*r) : "";
  }
};

TEST_P(LiveResultsTest, RowsSoFarAreAPrefixOfTheResultsByteForByte) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> id = client.Submit(SlowCar(1e9));
  ASSERT_TRUE(id.ok()) << id.status();
  // Without partial, as before: no results until it succeeded.
  const client::JobResults all = RowsSoFar(client, *id, 1000);
  ASSERT_GE(all.rows(), 1000u);
  EXPECT_TRUE(all.metadata.partial());
  EXPECT_EQ(all.first_row, 0u);
  absl::StatusOr<client::JobResults> refused = client.Results(*id);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("RUNNING"));
  // From row 500 on, and the last row alone.
  absl::StatusOr<client::JobResults> from =
      client.Results(*id, client::ResultsRequest{.partial = true, .first_row = 500});
  ASSERT_TRUE(from.ok()) << from.status();
  absl::StatusOr<client::JobResults> last =
      client.Results(*id, client::ResultsRequest{.partial = true, .last_rows = 1});
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_EQ(last->rows(), 1u);
  EXPECT_GE(last->first_row, all.rows() - 1);
  // `cosimo results --partial` and the JSON API, while it runs.
  Process cli({BinDir() + "/cosimo", "results", *id, "--partial", "--orchestrator",
               orchestrator_->address(), "--out", dir_ + "/partial.csv"},
              dir_ + "/results.log");
  EXPECT_EQ(cli.Wait(std::chrono::seconds(60)), 0) << cli.log();
  EXPECT_THAT(cli.log(), HasSubstr("partial results"));
  EXPECT_THAT(ReadFile(dir_ + "/partial.csv.meta.json"), HasSubstr("\"partial\": true"));
  Process refuse({BinDir() + "/cosimo", "results", *id, "--orchestrator", orchestrator_->address(),
                  "--out", dir_ + "/refused.csv"},
                 dir_ + "/refused.log");
  EXPECT_EQ(refuse.Wait(std::chrono::seconds(60)), 1) << refuse.log();
  EXPECT_THAT(refuse.log(), HasSubstr("--partial"));
  httplib::Client http("127.0.0.1", http_port_);
  http.set_read_timeout(60, 0);
  httplib::Result json = http.Get("/api/jobs/" + *id + "/table?partial=1&limit=2000");
  ASSERT_TRUE(json) << httplib::to_string(json.error());
  ASSERT_EQ(json->status, 200) << json->body;
  const nlohmann::json table = nlohmann::json::parse(json->body);
  EXPECT_TRUE(table["partial"].get<bool>());
  httplib::Result not_partial = http.Get("/api/jobs/" + *id + "/table");
  ASSERT_TRUE(not_partial);
  EXPECT_NE(not_partial->status, 200);

  ASSERT_TRUE(client.Cancel(*id).ok());
  // Past every row read: the last row's time, the JSON's last row's and the CLI's (read last).
  const std::vector<std::string> cli_lines = Lines(ReadFile(dir_ + "/partial.csv"));
  ASSERT_GT(cli_lines.size(), 1u);
  const double reached =
      std::max({last->values[0], table["rows"].back()[0].get<double>(),
                std::stod(cli_lines.back().substr(0, cli_lines.back().find(',')))});
  std::string final_id;
  const std::string final_csv = FinishedCsv(client, reached + 1.0, &final_id);
  const std::vector<std::string> final_lines = Lines(final_csv);
  EXPECT_THAT(final_csv, StartsWith(Csv(all)));
  EXPECT_THAT(final_csv, StartsWith(ReadFile(dir_ + "/partial.csv")));
  ASSERT_GT(final_lines.size(), last->first_row + 1);
  EXPECT_EQ(Lines(Csv(*last))[1], final_lines[last->first_row + 1]);
  const std::vector<std::string> from_lines = Lines(Csv(*from));
  ASSERT_GT(from_lines.size(), 1u);
  for (size_t k = 1; k < from_lines.size(); ++k) {
    ASSERT_EQ(from_lines[k], final_lines[500 + k]) << "row " << 500 + k - 1;
  }
  // The JSON rows are the results' rows (the JSON of the finished table has them first).
  httplib::Result done = http.Get("/api/jobs/" + final_id + "/table?limit=2000");
  ASSERT_TRUE(done);
  ASSERT_EQ(done->status, 200) << done->body;
  const nlohmann::json final_table = nlohmann::json::parse(done->body);
  EXPECT_FALSE(final_table["partial"].get<bool>());
  ASSERT_LE(table["rows"].size(), final_table["rows"].size());
  for (size_t r = 0; r < table["rows"].size(); ++r) {
    ASSERT_EQ(table["rows"][r], final_table["rows"][r]) << "row " << r;
  }
}

TEST_P(LiveResultsTest, WatchFollowPrintsTheLatestValuesOfTheResults) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> id = client.Submit(SlowCar(1e9));
  ASSERT_TRUE(id.ok()) << id.status();
  Process watch({BinDir() + "/cosimo", "watch", *id, "--follow", "vehicle.v,controller.F",
                 "--orchestrator", orchestrator_->address()},
                dir_ + "/watch.log");
  std::vector<std::string> values;
  for (int i = 0; i < 1200 && values.size() < 3; ++i) {
    values.clear();
    for (const std::string& line : Lines(watch.log())) {
      if (line.rfind("t=", 0) == 0) values.push_back(line);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(values.size(), 3u) << watch.log();
  Process unknown({BinDir() + "/cosimo", "watch", *id, "--follow", "vehicle.speed",
                   "--orchestrator", orchestrator_->address()},
                  dir_ + "/unknown.log");
  EXPECT_EQ(unknown.Wait(std::chrono::seconds(30)), 2) << unknown.log();
  EXPECT_THAT(unknown.log(), HasSubstr("'vehicle.speed'"));
  ASSERT_TRUE(client.Cancel(*id).ok());
  EXPECT_EQ(watch.Wait(std::chrono::seconds(30)), 1) << watch.log();
  EXPECT_THAT(watch.log(), HasSubstr(*id + " CANCELED"));
  // Each line is a row of the results: "t=T  vehicle.v=V  controller.F=F" is the row "T,V,F".
  double reached = 0;
  std::vector<std::string> rows;
  for (const std::string& line : values) {
    const size_t v = line.find("  vehicle.v="), f = line.find("  controller.F=");
    ASSERT_NE(v, std::string::npos) << line;
    ASSERT_NE(f, std::string::npos) << line;
    const std::string t = line.substr(2, v - 2);
    rows.push_back(t + "," + line.substr(v + 12, f - v - 12) + "," + line.substr(f + 15));
    reached = std::max(reached, std::stod(t));
  }
  std::string final_id;
  const std::vector<std::string> final_lines = Lines(FinishedCsv(client, reached + 1.0, &final_id));
  for (const std::string& row : rows) {
    EXPECT_NE(std::find(final_lines.begin(), final_lines.end(), row), final_lines.end()) << row;
  }
}

// What `cosimo run` does (issue 40): the rows read as the job runs, each read appending to those
// held (Client::ReadMoreResults), and the rest once it ended, are its results byte for byte; and
// GetJob waiting for the job's end (wait_for_end_ms) answers with the ended job.
TEST_P(LiveResultsTest, RowsHeldAndTheRestReadLaterAreTheResultsByteForByte) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> id = client.Submit(SlowCar(1e9));
  ASSERT_TRUE(id.ok()) << id.status();
  client::JobResults held;
  int reads = 0;
  for (int i = 0; i < 1200 && held.rows() < 1000; ++i) {
    const size_t before = held.rows();
    // Refused while the job is queued; a refused read leaves the rows held as they were.
    if (client.ReadMoreResults(*id, /*partial=*/true, &held).ok()) ++reads;
    ASSERT_GE(held.rows(), before);
    if (held.rows() < 1000) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(held.rows(), 1000u);
  EXPECT_GT(reads, 1);
  EXPECT_TRUE(held.metadata.partial());
  // Waiting for its end: still running after a millisecond; canceled, the answer is the end.
  absl::StatusOr<v1::JobStatus> running = client.Get(*id, std::chrono::milliseconds(1));
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(running->state(), v1::RUNNING);
  ASSERT_TRUE(client.Cancel(*id).ok());
  absl::StatusOr<v1::JobStatus> ended = client.Get(*id, std::chrono::seconds(10));
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->state(), v1::CANCELED);

  std::string final_id;
  const std::string final_csv =
      FinishedCsv(client, held.values[(held.rows() - 1) * 3] + 1.0, &final_id);
  EXPECT_THAT(final_csv, StartsWith(Csv(held)));
  // The held rows of the run, completed from the finished job (the same rows, as its own
  // first ones): the results whole, metadata and all.
  client::JobResults completed = held;
  completed.KeepRows(held.rows() / 2);
  ASSERT_TRUE(client.ReadMoreResults(final_id, /*partial=*/false, &completed).ok());
  EXPECT_EQ(Csv(completed), final_csv);
  absl::StatusOr<client::JobResults> whole = client.Results(final_id);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_FALSE(completed.metadata.partial());
  EXPECT_EQ(completed.metadata.SerializeAsString(), whole->metadata.SerializeAsString());
}

INSTANTIATE_TEST_SUITE_P(MasterWhere, LiveResultsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "InWorker" : "InOrchestrator";
                         });

}  // namespace
}  // namespace cosimo::testing
