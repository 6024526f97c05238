// Checkpoints and resumption (issue 18), with real processes: a job whose worker is killed
// (kill -9) or stopped (SIGSTOP, lost by its heartbeat) mid-job resumes from its last checkpoint
// on a spare worker, and a job whose orchestrator is killed (kill -9) resumes after a restart on
// the same data directory once its workers re-attach; each gives the CSV of a fault-free run
// byte for byte. A job whose unit cannot serialise its state fails naming the unit and why.
//
// The scenario is Busch's dual-mass oscillator under Newton with one unit estimated (COSTARICA)
// and one that rolls back, checkpointed every 20 steps; the fault comes once the job has passed
// a checkpoint (its reported time), whatever the machine's speed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <sstream>

#include "cosimo/common/csv.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::DistributedTest;
using testing::DualMass;
using ::testing::HasSubstr;
using testing::InProcess;

constexpr double kStopTime = 6.0;
constexpr double kFaultAfter = 1.0;  // s of simulated time: past checkpoints at 0.2, 0.4, ...

v1::Scenario Checkpointed() {
  return DualMass("NEWTON", R"("checkpoint_every": 20,)", 100.0, kStopTime);
}

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

void WaitForWorkers(client::Client& client, size_t n) {
  for (int i = 0; i < 600; ++i) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
    if (workers.ok() && workers->size() >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL() << n << " workers did not attach";
}

// Waits until the job's reported time passed `t` while it runs; false when it ended first.
bool WaitForTime(client::Client& client, const std::string& job, double t) {
  for (int i = 0; i < 3000; ++i) {
    absl::StatusOr<v1::JobStatus> s = client.Get(job);
    if (s.ok() && s->state() == v1::RUNNING && s->time() > t) return true;
    if (s.ok() && s->state() != v1::RUNNING && s->state() != v1::QUEUED) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The pid of a worker that runs units of `job`.
int BusyWorkerPid(client::Client& client, const std::string& job) {
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
  EXPECT_TRUE(workers.ok()) << workers.status();
  if (!workers.ok()) return -1;
  for (const v1::WorkerStatus& w : *workers) {
    if (w.busy() && w.job_id() == job) return w.pid();
  }
  ADD_FAILURE() << "no worker runs job " << job;
  return -1;
}

std::string ResultsCsv(client::Client& client, const std::string& job) {
  absl::StatusOr<client::JobResults> results = client.Results(job);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? Csv(*results) : "";
}

// Submits `scenario`, kills (-9) one of its workers once the job has passed `t` (simulated time)
// and returns the job's final status; an error when a stage did not come.
absl::StatusOr<v1::JobStatus> RunAndKillAWorker(client::Client& client,
                                                const v1::Scenario& scenario, double t) {
  absl::StatusOr<std::string> job = client.Submit(scenario);
  if (!job.ok()) return job.status();
  if (!WaitForTime(client, *job, t)) return absl::InternalError("the job ended before the fault");
  const int pid = BusyWorkerPid(client, *job);
  if (pid <= 0 || kill(pid, SIGKILL) != 0) return absl::InternalError("no worker to kill");
  return client.Watch(*job, nullptr, 50);
}

class CheckpointTest : public DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    return {"--heartbeat-interval-ms",   "100", "--heartbeat-timeout-ms", "1000",
            "--unschedulable-timeout-s", "30"};
  }

  // Two workers for the job's units and a spare; `signal` to one of the job's mid-job.
  void ExpectResumesAfter(int signal) {
    StartWorkers(3);
    client::Client client(orchestrator_->address());
    WaitForWorkers(client, 3);
    const v1::Scenario scenario = Checkpointed();
    absl::StatusOr<std::string> job = client.Submit(scenario);
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE(WaitForTime(client, *job, kFaultAfter)) << "the job ended before the fault";
    const int pid = BusyWorkerPid(client, *job);
    ASSERT_GT(pid, 0);
    testing::Process* victim = nullptr;
    for (auto& w : workers_) {
      if (w->pid() == pid) victim = w.get();
    }
    ASSERT_NE(victim, nullptr);
    victim->Signal(signal);
    absl::StatusOr<v1::JobStatus> status = client.Watch(*job, nullptr, 50);
    victim->Signal(SIGKILL);  // a stopped worker would not stop on the fixture's SIGTERM
    ASSERT_TRUE(status.ok()) << status.status();
    ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
    EXPECT_THAT(orchestrator_->process().log(), HasSubstr("resumes from its checkpoint at t="));
    EXPECT_EQ(ResultsCsv(client, *job), Csv(InProcess(scenario)));
  }
};

TEST_F(CheckpointTest, KilledWorkerIsReplacedAndTheResultsAreThoseOfAFaultFreeRun) {
  ExpectResumesAfter(SIGKILL);
}

TEST_F(CheckpointTest, StoppedWorkerIsLostByItsHeartbeatAndReplaced) {
  ExpectResumesAfter(SIGSTOP);
}

// The test FMU without canGetAndSetFMUstate: no checkpoint, so the job fails as it did before
// checkpoints, naming the unit and what it lacks.
TEST_F(CheckpointTest, UnitThatCannotSerialiseFailsTheJobNamingWhy) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  WaitForWorkers(client, 2);
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(R"({"name": "nostate",
    "stop_time": 1000, "units": [{"name": "msd", "fmu": {"path": ")" +
                                                            std::string(COSIMO_BINARY_DIR) +
                                                            R"(/fmus/fmi2_msd_nostate.fmu"}}],
    "algorithm": {"step_size": 0.001, "checkpoint_every": 10}})");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  absl::StatusOr<v1::JobStatus> status = RunAndKillAWorker(client, *scenario, 0.05);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(), HasSubstr("was lost"));
  EXPECT_THAT(status->message(), HasSubstr("could not resume"));
  EXPECT_THAT(status->message(), HasSubstr("unit 'msd'"));
  EXPECT_THAT(status->message(), HasSubstr("canGetAndSetFMUstate"));
}

// With --max-resumptions 0 a lost worker fails the job, checkpoint or not, and the message says
// which flag would have let it resume.
class NoResumptionTest : public CheckpointTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = CheckpointTest::OrchestratorArgs();
    args.insert(args.end(), {"--max-resumptions", "0"});
    return args;
  }
};

TEST_F(NoResumptionTest, KilledWorkerFailsTheJobNamingTheFlag) {
  StartWorkers(3);
  client::Client client(orchestrator_->address());
  WaitForWorkers(client, 3);
  absl::StatusOr<v1::JobStatus> status = RunAndKillAWorker(client, Checkpointed(), kFaultAfter);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(), HasSubstr("could not resume"));
  EXPECT_THAT(status->message(), HasSubstr("--max-resumptions 0"));
  EXPECT_THAT(orchestrator_->process().log(),
              ::testing::Not(HasSubstr("resumes from its checkpoint at t=")));
}

// kill -9 of the orchestrator mid-job: restarted on the same address and data directory, it
// resumes the job from its checkpoint once the workers re-attach.
TEST(OrchestratorCheckpointTest, KilledOrchestratorResumesItsJobAfterARestart) {
  const std::string dir = testing::TempDir("cosimo-resume");
  const std::string data = dir + "/data";
  auto first = std::make_unique<testing::OrchestratorProcess>(
      dir, std::vector<std::string>{"--data-dir", data, "--heartbeat-interval-ms", "100"});
  ASSERT_GT(first->port(), 0) << first->process().log();
  const std::string address = first->address();
  const std::vector<std::unique_ptr<testing::Process>> workers =
      testing::ReconnectingWorkers(address, dir, 2);
  const v1::Scenario scenario = Checkpointed();
  std::string id;
  {
    client::Client client(address);
    WaitForWorkers(client, 2);
    absl::StatusOr<std::string> job = client.Submit(scenario);
    ASSERT_TRUE(job.ok()) << job.status();
    id = *job;
    ASSERT_TRUE(WaitForTime(client, id, kFaultAfter)) << "the job ended before the fault";
  }
  first->process().Signal(SIGKILL);
  first->process().Wait(std::chrono::seconds(5));
  testing::Process restarted(
      {testing::BinDir() + "/cosimo-orchestrator", "--listen", address, "--data-dir", data},
      dir + "/orchestrator2.log");
  client::Client client(address);
  absl::StatusOr<v1::JobStatus> status = testing::WatchOnceItAnswers(client, id);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  EXPECT_THAT(restarted.log(), HasSubstr("resumes from its checkpoint at t="));
  EXPECT_EQ(ResultsCsv(client, id), Csv(InProcess(scenario)));
}

}  // namespace
}  // namespace cosimo
