// A Job's kind, worker labels and artifacts from its status and scenario, and its version:
// a watcher of an old version returns at once, and so does one of the current version once the
// job is closed (the manager's shutdown). No threads: every wait here returns without waiting.
#include "orchestrator/src/job.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo::orchestrator {
namespace {

using ::testing::ElementsAre;

v1::Scenario TwoUnits() {
  v1::Scenario s;
  v1::Unit* car = s.add_units();
  car->set_name("car");
  car->set_worker_label("gpu");
  car->mutable_builtin()->set_model("car");
  v1::Unit* table = s.add_units();
  table->set_name("road");
  table->mutable_table()->set_digest("sha256:aa");
  return s;
}

TEST(JobTest, ASimulationRunsEveryUnitATrainingJobTheTrainedOne) {
  v1::JobStatus status;
  status.set_job_id("job-a");
  status.set_owner("alice");
  Job simulation(status, TwoUnits());
  EXPECT_EQ(simulation.kind, JobKind::kSimulation);
  EXPECT_THAT(simulation.labels, ElementsAre("gpu", ""));
  EXPECT_THAT(simulation.artifacts, ElementsAre("sha256:aa"));
  EXPECT_EQ(simulation.owner, "alice");

  v1::TrainingRequest* request = status.mutable_training()->mutable_request();
  request->set_unit("car");
  request->set_data_digest("sha256:bb");
  Job training(status, TwoUnits());
  EXPECT_EQ(training.kind, JobKind::kTraining);
  EXPECT_THAT(training.labels, ElementsAre("gpu"));
  EXPECT_THAT(training.artifacts, ElementsAre("sha256:aa", "sha256:bb"));
}

TEST(JobTest, AWatcherOfAnOldVersionOrOfAClosedJobReturnsAtOnce) {
  v1::JobStatus status;
  status.set_job_id("job-a");
  Job job(status, TwoUnits());
  uint64_t version = 0;
  job.WaitForChange(&version, absl::InfiniteFuture());  // 0: the current version at once
  const uint64_t first = version;
  {
    absl::MutexLock lock(&job.mutex);
    job.status.set_message("moved on");
    job.Touch();
  }
  EXPECT_EQ(job.WaitForChange(&version, absl::InfiniteFuture()).message(), "moved on");
  EXPECT_EQ(version, first + 1);
  job.Close();
  job.WaitForChange(&version, absl::InfiniteFuture());  // would wait for ever if not closed
  EXPECT_EQ(version, first + 1);
}

}  // namespace
}  // namespace cosimo::orchestrator
