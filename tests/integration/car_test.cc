// End to end: a real cosimo-orchestrator and real cosimo-worker processes on loopback, jobs
// submitted with the client library, results checked against the analytic solution.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cosimo/client/client.h"
#include "cosimo/common/scenario.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::BinDir;
using testing::CarScenario;
using testing::DistributedTest;
using ::testing::HasSubstr;
using testing::Process;

// The tutorial's car: m v' = k (v_d - v) - c_f v with m = 1576, k = 1e3, v_d = 40, c_f = 0.5,
// v(0) = 0, so v(t) = v_inf (1 - exp(-(k + c_f) t / m)) with v_inf = k v_d / (k + c_f).
double CarAnalytic(double t) {
  const double m = 1576, k = 1e3, vd = 40, cf = 0.5;
  return k * vd / (k + cf) * (1 - std::exp(-(k + cf) / m * t));
}

// Jacobi with zero-order hold is first order in H: halving H halves the error.
TEST_F(DistributedTest, CarConvergesAtFirstOrderInTheCommunicationStep) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::vector<double> errors;
  for (double h : {0.2, 0.1, 0.05, 0.025}) {
    std::string id;
    const v1::JobStatus status = RunJob(client, CarScenario(h), &id);
    ASSERT_EQ(status.state(), v1::SUCCEEDED) << status.message();
    absl::StatusOr<client::JobResults> results = client.Results(id);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->columns[0], "time");
    ASSERT_EQ(results->columns[1], "vehicle.v");
    // One row per communication point from 0 to 10 inclusive.
    ASSERT_EQ(results->rows(), static_cast<size_t>(std::lround(10.0 / h)) + 1);
    double max_error = 0;
    for (size_t r = 0; r < results->rows(); ++r) {
      const double t = results->values[r * results->columns.size()];
      const double v = results->values[r * results->columns.size() + 1];
      max_error = std::max(max_error, std::abs(v - CarAnalytic(t)));
    }
    EXPECT_DOUBLE_EQ(results->values[(results->rows() - 1) * results->columns.size()], 10.0);
    EXPECT_EQ(results->metadata.steps_accepted(), results->rows() - 1);
    ASSERT_EQ(results->metadata.units_size(), 2);
    errors.push_back(max_error);
  }
  for (size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    EXPECT_NEAR(order, 1.0, 0.15) << "H=" << 0.2 / (1 << (i - 1)) << " errors " << errors[i - 1]
                                  << " -> " << errors[i];
  }
}

// A unit that fails in its worker (an FMU whose fmi2DoStep fails, beside the car's built-ins)
// fails its job with a message naming it; the workers go back to the pool and the next job runs.
// (A unit that names no built-in model is refused at submit: errors_up_front_test.)
TEST_F(DistributedTest, BadUnitFailsTheJobAndTheWorkersServeTheNextOne) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  v1::JobStatus status =
      RunJob(client, testing::MsdWithSpring(testing::Fmu("fmi2_error"), 0.01), &id);
  EXPECT_EQ(status.state(), v1::FAILED);
  EXPECT_THAT(status.message(), HasSubstr("unit 'msd'"));
  EXPECT_THAT(status.message(), HasSubstr("fmi2DoStep"));
  absl::StatusOr<client::JobResults> results = client.Results(id);
  EXPECT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("FAILED"));

  status = RunJob(client, CarScenario(0.1), &id);
  EXPECT_EQ(status.state(), v1::SUCCEEDED) << status.message();
}

// A job waits, and says so, until enough workers attach.
TEST_F(DistributedTest, JobWaitsForWorkersAndSaysHowManyItNeeds) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> job = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::JobStatus> status = client.Get(*job);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->state(), v1::QUEUED);
  EXPECT_THAT(status->message(), HasSubstr("needs 2"));
  StartWorkers(2);
  status = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::SUCCEEDED) << status->message();
}

TEST_F(DistributedTest, WorkerWithAnotherProtocolVersionIsRefused) {
  StartWorkers(1, {"--protocol-version", "7", "--once"});
  ASSERT_EQ(workers_[0]->Wait(std::chrono::seconds(20)), 1) << workers_[0]->log();
  EXPECT_THAT(workers_[0]->log(), HasSubstr("incompatible protocol version 7"));
}

TEST_F(DistributedTest, UnknownJobIdIsAClearError) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<v1::JobStatus> status = client.Get("job-nope");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("unknown job id 'job-nope'"));
}

// The embedded default, through the real command line.
TEST(CosimoRunTest, RunsTheCarExampleAndWritesTheCsv) {
  const std::string dir = testing::TempDir("cosimo-run");
  const std::string out = dir + "/car.csv";
  Process run({BinDir() + "/cosimo", "run", std::string(COSIMO_SOURCE_DIR) + "/examples/car.json",
               "--out", out},
              dir + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  const std::string csv = testing::ReadFile(out);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time,vehicle.v,controller.F");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 101);
  EXPECT_THAT(run.log(), HasSubstr("results written to " + out));
  EXPECT_THAT(testing::ReadFile(out + ".meta.json"), HasSubstr("scenario_digest"));
}

TEST(CosimoRunTest, BadScenarioExitsWithUsageErrorNamingTheField) {
  const std::string dir = testing::TempDir("cosimo-run");
  std::ofstream(dir + "/bad.json") << R"({"stop_time": 1, "units": [{"name": "a",
      "builtin": {"model": "car"}}], "algorithm": {"step_size": -0.5}})";
  Process run({BinDir() + "/cosimo", "run", dir + "/bad.json"}, dir + "/run.log");
  EXPECT_EQ(run.Wait(std::chrono::seconds(30)), 2);
  EXPECT_THAT(run.log(), HasSubstr("algorithm.step_size must be > 0"));
}

// JSON that a parser cannot take whole is refused with 2 and where it went wrong: a number no
// double holds (was an uncaught exception, rc 134) and lists nested a million deep (kept
// `cosimo run` busy for over an hour).
TEST(CosimoRunTest, UnparsableScenarioExitsWithTwoNamingThePosition) {
  const std::string dir = testing::TempDir("cosimo-run");
  std::ofstream(dir + "/overflow.json") << R"({"stop_time": 1, "units": [{"name": "a",
      "builtin": {"model": "car"}}], "algorithm": {"step_size": 1e400}})";
  Process overflow({BinDir() + "/cosimo", "run", dir + "/overflow.json"}, dir + "/overflow.log");
  EXPECT_EQ(overflow.Wait(std::chrono::seconds(30)), 2);
  EXPECT_THAT(overflow.log(), HasSubstr("number overflow"));
  EXPECT_THAT(overflow.log(), HasSubstr("line 2, column"));
  std::ofstream(dir + "/deep.json")
      << R"({"units": [{"name": "a", "parameters": {"p": )" << std::string(1000000, '[')
      << std::string(1000000, ']') << "}}]}";
  Process deep({BinDir() + "/cosimo", "run", dir + "/deep.json"}, dir + "/deep.log");
  EXPECT_EQ(deep.Wait(std::chrono::seconds(30)), 2);
  EXPECT_THAT(deep.log(), HasSubstr("deeper than 64 levels at line 1"));
}

// Workers that cannot start end the run with that cause (a 1000-unit run said only "canceled
// before it started", the cause was on stdout).
TEST(CosimoRunTest, WorkersThatCannotStartAreTheNamedCause) {
  client::EmbeddedOptions options;
  options.worker_binary = "/bin/false";  // starts, and exits at once
  absl::StatusOr<client::JobResults> results = client::RunEmbedded(CarScenario(0.1), options);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kUnavailable) << results.status();
  EXPECT_THAT(std::string(results.status().message()),
              HasSubstr("could not start: worker process"));
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("exited early"));
}

// Bad usage of any of the three binaries exits with 2 (README, "The command line") and names
// what was wrong; --help exits with 0.
TEST(CommandLineTest, BadUsageExitsWithTwoAndHelpWithZero) {
  const std::string dir = testing::TempDir("cosimo-usage");
  struct Case {
    std::vector<std::string> argv;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{BinDir() + "/cosimo", "run"}, 2, "scenario is required"},
      {{BinDir() + "/cosimo", "frobnicate"}, 2, "frobnicate"},
      {{BinDir() + "/cosimo", "list", "--bogus"}, 2, "--bogus"},
      {{BinDir() + "/cosimo-worker", "--bogus"}, 2, "--bogus"},
      {{BinDir() + "/cosimo-orchestrator", "--artifact-retention-hours", "-1"},
       2,
       "--artifact-retention-hours"},
      {{BinDir() + "/cosimo", "--help"}, 0, "submit"},
      {{BinDir() + "/cosimo-orchestrator", "--help"}, 0, "--job-retention-days"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Process p(cases[i].argv, dir + "/" + std::to_string(i) + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(30)), cases[i].code) << cases[i].argv[1];
    EXPECT_THAT(p.log(), HasSubstr(cases[i].says)) << cases[i].argv[1];
  }
}

}  // namespace
}  // namespace cosimo
