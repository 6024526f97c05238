// Checkpoints of a master run (issue 18), in-process: a run resumed from any of its checkpoints,
// with freshly loaded units, gives the table and the counters of the run that took them, bit for
// bit: Jacobi, Gauss-Seidel with adaptive H (the step control's H in the checkpoint), Newton with
// a COSTARICA unit. checkpoint_every counts accepted steps; a negative one is refused by the
// scenario's rules; a unit that cannot serialise ends the checkpoints, not the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "orchestrator/src/clock.h"
#include "orchestrator/src/job_observer.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::LoadFor;
using testing::LocalJob;
using testing::Parse;

class Checkpoints final : public MasterObserver {
 public:
  void OnProgress(const Progress&) override {}
  bool Canceled() override { return false; }
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override { taken.push_back(checkpoint); }
  void OnCheckpointFailed(const absl::Status& why) override { failed = why; }

  std::vector<v1::JobCheckpoint> taken;
  absl::Status failed;
};

absl::StatusOr<MasterResult> RunLocal(const v1::Scenario& scenario, MasterObserver* observer,
                                      const v1::JobCheckpoint* resume = nullptr) {
  LocalJob job;
  for (int u = 0; u < scenario.units_size(); ++u) {
    absl::StatusOr<std::unique_ptr<LocalUnit>> unit = LocalUnit::Create(LoadFor(scenario, u));
    if (!unit.ok()) return unit.status();
    job.Add(*std::move(unit));
  }
  return RunMaster(scenario, job.units, observer, resume);
}

void ExpectResumesBitForBit(const v1::Scenario& scenario, size_t expected_checkpoints) {
  Checkpoints observer;
  absl::StatusOr<MasterResult> full = RunLocal(scenario, &observer);
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_EQ(observer.taken.size(), expected_checkpoints);
  for (const v1::JobCheckpoint& checkpoint : observer.taken) {
    absl::StatusOr<MasterResult> resumed = RunLocal(scenario, nullptr, &checkpoint);
    ASSERT_TRUE(resumed.ok()) << resumed.status();
    EXPECT_EQ(resumed->columns, full->columns);
    EXPECT_EQ(resumed->values, full->values) << "resumed at t=" << checkpoint.time();
    EXPECT_EQ(resumed->steps_accepted, full->steps_accepted);
    EXPECT_EQ(resumed->steps_rejected, full->steps_rejected);
    EXPECT_EQ(resumed->iterations_max, full->iterations_max);
    EXPECT_EQ(resumed->iterations_mean, full->iterations_mean);
  }
}

v1::Scenario Ring(const std::string& algorithm) {
  return Parse(R"({"stop_time": 2, "units": [
      {"name": "a", "builtin": {"model": "mass_spring_damper"}, "solver": {"method": "RK45"}},
      {"name": "b", "builtin": {"model": "mass_spring_damper", "parameters": {"x0": -1}},
       "solver": {"method": "CENTRAL_DIFFERENCE", "step": 0.01}}],
    "connections": [{"from": "a.x", "to": "b.F_e"}, {"from": "b.x", "to": "a.F_e"}],
    "algorithm": {)" +
               algorithm +
               R"(, "checkpoint_every": 50, "input_approximation": "POLYNOMIAL",
                  "extrapolation_degree": 2}})");
}

TEST(MasterCheckpointTest, JacobiResumesBitForBit) {
  ExpectResumesBitForBit(Ring(R"("kind": "JACOBI", "step_size": 0.01)"), 3);
}

// The job's observer in front, seeing what the master hands it.
class Recording final : public MasterObserver {
 public:
  explicit Recording(orchestrator::JobObserver* job) : job_(job) {}
  void OnProgress(const Progress& p) override { job_->OnProgress(p); }
  bool Canceled() override { return job_->Canceled(); }
  bool CheckpointDue() override { return job_->CheckpointDue(); }
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override {
    taken.push_back(checkpoint);
    job_->OnCheckpoint(checkpoint);
  }
  CheckpointMark Checkpointed() override { return job_->Checkpointed(); }

  std::vector<v1::JobCheckpoint> taken;

 private:
  orchestrator::JobObserver* job_;
};

// Through the job's observer and store, each checkpoint carries only the rows recorded since the
// one before (not every row so far), and the checkpoint read back from the store holds them all
// and resumes the run bit for bit.
TEST(MasterCheckpointTest, CheckpointsCarryOnlyTheNewRowsAndTheStoreReadsThemBackWhole) {
  const v1::Scenario scenario = Ring(R"("kind": "JACOBI", "step_size": 0.01)");
  absl::StatusOr<std::unique_ptr<orchestrator::SqliteJobStore>> store =
      orchestrator::SqliteJobStore::Open("");
  ASSERT_TRUE(store.ok()) << store.status();
  v1::JobStatus status;
  status.set_job_id("job-1");
  ASSERT_TRUE((*store)->Put(status, scenario).ok());
  std::atomic<bool> cancel{false};
  orchestrator::JobObserver job([](const Progress&) {}, &cancel, nullptr, "job-1",
                                orchestrator::Clock::Real(), 1'000'000, store->get(),
                                std::chrono::seconds(0));
  Recording observer(&job);
  absl::StatusOr<MasterResult> full = RunLocal(scenario, &observer);
  ASSERT_TRUE(full.ok()) << full.status();

  // 200 steps, a checkpoint every 50 accepted ones: rows 0-50 (t=0 included), then 50 each.
  ASSERT_EQ(observer.taken.size(), 3u);
  const int columns = static_cast<int>(full->columns.size());
  uint64_t next = 0;
  for (const v1::JobCheckpoint& c : observer.taken) {
    EXPECT_EQ(c.rows_from(), next) << "at t=" << c.time();
    EXPECT_EQ(c.values_size(), (next == 0 ? 51 : 50) * columns) << "at t=" << c.time();
    next += static_cast<uint64_t>(c.values_size() / columns);
  }
  EXPECT_EQ(job.Checkpointed().rows, 151u);

  absl::StatusOr<v1::JobCheckpoint> loaded = (*store)->LoadCheckpoint("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->time(), observer.taken.back().time());
  ASSERT_EQ(loaded->values_size(), 151 * columns);
  EXPECT_TRUE(std::equal(loaded->values().begin(), loaded->values().end(), full->values.begin()));
  absl::StatusOr<MasterResult> resumed = RunLocal(scenario, nullptr, &*loaded);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->values, full->values);
  EXPECT_EQ(resumed->steps_accepted, full->steps_accepted);
}

TEST(MasterCheckpointTest, AdaptiveGaussSeidelResumesBitForBit) {
  v1::Scenario scenario = Ring(R"("kind": "GAUSS_SEIDEL", "step_size": 0.01,
      "adaptive": {"min_step": 1e-4, "max_step": 0.1, "tolerance": 1e-5})");
  scenario.mutable_algorithm()->set_checkpoint_every(5);
  Checkpoints observer;
  ASSERT_TRUE(RunLocal(scenario, &observer).ok());
  ASSERT_GE(observer.taken.size(), 2u);
  ExpectResumesBitForBit(scenario, observer.taken.size());
}

TEST(MasterCheckpointTest, NewtonWithAnEstimatedUnitResumesBitForBit) {
  v1::Scenario scenario = Ring(R"("kind": "NEWTON", "step_size": 0.02, "tolerance": 1e-10)");
  scenario.mutable_units(0)->set_rollback(v1::Unit::FORBID);
  ExpectResumesBitForBit(scenario, 1);
}

TEST(MasterCheckpointTest, NegativeCheckpointEveryIsRefused) {
  v1::Scenario scenario = Ring(R"("kind": "JACOBI", "step_size": 0.01)");
  scenario.mutable_algorithm()->set_checkpoint_every(-1);
  absl::Status s = ValidateScenario(scenario);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("algorithm.checkpoint_every"), std::string::npos) << s;
}

TEST(MasterCheckpointTest, AUnitThatCannotSerialiseEndsTheCheckpointsNotTheRun) {
  v1::Scenario scenario = Parse(R"({"stop_time": 0.5, "units": [{"name": "msd", "fmu": {"path":
      ")" + std::string(COSIMO_BINARY_DIR) +
                                R"(/fmus/fmi2_msd_nostate.fmu"}}],
      "algorithm": {"step_size": 0.01, "checkpoint_every": 10}})");
  Checkpoints observer;
  absl::StatusOr<MasterResult> r = RunLocal(scenario, &observer);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(observer.taken.empty());
  EXPECT_NE(observer.failed.message().find("unit 'msd'"), std::string::npos) << observer.failed;
  EXPECT_NE(observer.failed.message().find("canGetAndSetFMUstate"), std::string::npos)
      << observer.failed;
}

}  // namespace
}  // namespace cosimo::master
