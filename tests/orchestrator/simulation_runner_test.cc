// SimulationRunner's early return, without workers: a job that resumes and whose checkpoint
// cannot be read back gives its workers back exactly once, before it ends (as RunJob did, so a
// client that sees the job FAILED finds its workers idle), and says why.
#include "orchestrator/src/simulation_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "orchestrator/src/sqlite_job_store.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

TEST(SimulationRunnerTest, ACheckpointThatCannotBeReadBackReleasesTheWorkersOnceBeforeTheEnd) {
  std::unique_ptr<SqliteJobStore> store = *SqliteJobStore::Open("");
  ManualClock clock;
  JobRecorder recorder(store.get(), &clock, [] { return false; });
  RunningUnitsMap running_units;
  RunnerEnv env;
  env.recorder = &recorder;
  env.running_units = &running_units;
  v1::Scenario scenario;
  v1::Unit* unit = scenario.add_units();
  unit->set_name("car");
  unit->mutable_builtin()->set_model("car");
  v1::JobStatus status;
  status.set_job_id("job-resuming");
  status.set_state(v1::RUNNING);
  ASSERT_TRUE(store->Put(status, scenario).ok());  // and no checkpoint
  auto job = std::make_shared<Job>(status, scenario);
  {
    absl::MutexLock lock(&job->mutex);
    job->resuming = true;
  }
  std::vector<v1::JobState> state_at_release;
  WorkerLease lease(WorkerLease::Workers(1),
                    [&](const WorkerLease::Workers&) { state_at_release.push_back(job->State()); });

  SimulationRunner(env).Run(job, scenario, std::move(lease));

  EXPECT_THAT(state_at_release, ElementsAre(v1::RUNNING));
  const v1::JobStatus ended = job->Status();
  EXPECT_EQ(ended.state(), v1::FAILED);
  EXPECT_THAT(ended.message(),
              StartsWith("could not resume: its checkpoint could not be read back"));
  EXPECT_EQ(store->LoadAll()->front().status.state(), v1::FAILED) << "recorded";
  EXPECT_TRUE(running_units.All().empty());
}

}  // namespace
}  // namespace cosimo::orchestrator
