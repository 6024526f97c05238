// Training as a job on the service (docs/hybrid.md): a real orchestrator and worker processes,
// the `cosimo train --orchestrator` command line. The weights from the service are byte for byte
// those of a local `cosimo train`; progress (epoch, loss) reaches the job's status; a cancel
// stops training and frees the worker; bad input is refused at submit with exit code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <thread>

#include "cosimo/common/scenario.h"
#include "cosimo/units/pendulum_experiment.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::BinDir;
using testing::DistributedTest;
using ::testing::HasSubstr;
using testing::Process;
using testing::ReadFile;
using testing::WriteFile;

class TrainServiceTest : public DistributedTest {
 protected:
  void SetUp() override {
    DistributedTest::SetUp();
    // The hybrid pendulum (4 tanh neurons per hidden layer) and its reference data on [0, 1] s.
    WriteFile(Path("scenario.json"),
              ScenarioToJson(units::experiment::PendulumScenario(0.5, 0.0, 1.0, "RK4", 4, 1)));
    WriteFile(Path("data.csv"), units::experiment::PendulumReferenceCsv(0.5, 0.0, 1.0));
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // `cosimo train scenario.json --data DATA --unit UNIT --learning-rate RATE EXTRA...`: its
  // exit code, its output (stdout and stderr) in `*log`.
  int Train(const std::vector<std::string>& extra, std::string* log,
            const std::string& data = "data.csv", const std::string& unit = "pendulum",
            const std::string& rate = "0.01") {
    std::vector<std::string> argv = {
        BinDir() + "/cosimo", "train", Path("scenario.json"), "--data", Path(data), "--unit", unit,
        "--learning-rate",    rate};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Process train(argv, Path("train" + std::to_string(++runs_) + ".log"));
    const int code = train.Wait(std::chrono::seconds(300));
    *log = train.log();
    return code;
  }

  absl::StatusOr<std::string> SubmitTraining(client::Client& client, int epochs) {
    absl::StatusOr<v1::Scenario> scenario = LoadScenarioFile(Path("scenario.json"));
    if (!scenario.ok()) return scenario.status();
    v1::TrainingRequest request;
    request.set_unit("pendulum");
    request.set_epochs(epochs);
    request.set_learning_rate(0.01);
    return client.SubmitTraining(*scenario, request, Path("data.csv"));
  }

  int runs_ = 0;
};

std::string JobIdIn(const std::string& log) {
  std::smatch match;
  return std::regex_search(log, match, std::regex("job-[0-9a-f]{10}")) ? match.str() : "";
}

TEST_F(TrainServiceTest, WeightsFromTheServiceAreThoseOfLocalTraining) {
  StartWorkers(1);
  std::string local_log, remote_log, results_log;
  ASSERT_EQ(Train({"--epochs", "5", "--out", Path("local.json")}, &local_log), 0) << local_log;
  ASSERT_EQ(Train({"--epochs", "5", "--out", Path("remote.json"), "--orchestrator",
                   orchestrator_->address(), "--wait"},
                  &remote_log),
            0)
      << remote_log;
  EXPECT_THAT(remote_log, HasSubstr("epoch 5/5"));
  EXPECT_THAT(remote_log, HasSubstr("weights written to " + Path("remote.json")));
  const std::string local = ReadFile(Path("local.json"));
  ASSERT_THAT(local, HasSubstr("\"bottom\""));
  EXPECT_EQ(ReadFile(Path("remote.json")), local);

  // `cosimo results` of a training job writes its weights file, not a CSV.
  const std::string job = JobIdIn(remote_log);
  ASSERT_FALSE(job.empty()) << remote_log;
  Process results({BinDir() + "/cosimo", "results", job, "--orchestrator", orchestrator_->address(),
                   "--out", Path("again.json")},
                  Path("results.log"));
  ASSERT_EQ(results.Wait(std::chrono::seconds(30)), 0) << results.log();
  EXPECT_EQ(ReadFile(Path("again.json")), local);

  client::Client client(orchestrator_->address());
  absl::StatusOr<v1::JobStatus> status = client.Get(job);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::SUCCEEDED);
  EXPECT_EQ(status->training().epoch(), 5);
  EXPECT_LT(status->training().loss(), status->training().first_loss());
  absl::StatusOr<client::JobResults> table = client.Results(job);
  EXPECT_EQ(table.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(table.status().message()), HasSubstr("weights file"));
}

// Progress reaches the job's status while it trains; a cancel ends the job at once, the worker
// stops after its current epoch and trains the next job.
TEST_F(TrainServiceTest, ProgressIsReportedAndCancelStopsTraining) {
  StartWorkers(1);
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> job = SubmitTraining(client, 1000000);
  ASSERT_TRUE(job.ok()) << job.status();
  v1::JobStatus status;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && status.training().epoch() < 2) {
    absl::StatusOr<v1::JobStatus> s = client.Get(*job);
    ASSERT_TRUE(s.ok()) << s.status();
    status = *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(status.training().epoch(), 2) << workers_[0]->log();
  EXPECT_EQ(status.state(), v1::RUNNING);
  EXPECT_GT(status.training().loss(), 0.0);
  EXPECT_GT(status.training().first_loss(), 0.0);
  ASSERT_TRUE(client.Cancel(*job).ok());
  absl::StatusOr<v1::JobStatus> end = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end->state(), v1::CANCELED) << end->message();
  EXPECT_LT(end->training().epoch(), 1000000);

  // The one worker is free again: a short training job runs on it.
  absl::StatusOr<std::string> next = SubmitTraining(client, 2);
  ASSERT_TRUE(next.ok()) << next.status();
  absl::StatusOr<v1::JobStatus> done = client.Watch(*next, nullptr, 50);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::SUCCEEDED) << done->message();
  EXPECT_THAT(workers_[0]->log(), HasSubstr("training stopped after epoch"));
}

TEST_F(TrainServiceTest, BadInputIsRefusedAtSubmitWithExitCode2) {
  const std::vector<std::string> remote = {"--orchestrator", orchestrator_->address()};
  std::string log;
  EXPECT_EQ(Train(remote, &log, "data.csv", "nosuch"), 2) << log;
  EXPECT_THAT(log, HasSubstr("training.unit: the scenario has no unit 'nosuch'"));

  // Data without the velocity the scenario records.
  std::string data = units::experiment::PendulumReferenceCsv(0.5, 0.0, 1.0);
  data = std::regex_replace(data, std::regex(",[^,\n]*\n"), "\n");
  WriteFile(Path("no_v.csv"), data);
  ASSERT_THAT(data.substr(0, data.find('\n')), ::testing::Not(HasSubstr("pendulum.v")));
  EXPECT_EQ(Train(remote, &log, "no_v.csv"), 2) << log;
  EXPECT_THAT(log, HasSubstr("no_v.csv: no column 'pendulum.v'"));

  EXPECT_EQ(Train(remote, &log, "data.csv", "pendulum", "0"), 2) << log;
  EXPECT_THAT(log, HasSubstr("training.learning_rate must be a positive number"));
  EXPECT_EQ(Train({"--wait"}, &log), 2) << log;
  EXPECT_THAT(log, HasSubstr("--wait needs --orchestrator"));
}

}  // namespace
}  // namespace cosimo
