// Sweep jobs in the JobManager without workers (they stay queued): a sweep is checked at submit
// with its fields named under "sweep.", its status carries the sweep without its base and its
// number of variants, and a sweep that was running when the orchestrator stopped is queued again
// at the restart (its finished variants are in its checkpoint); the sweep table's columns and
// rows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "cosimo/common/sweep.h"
#include "orchestrator/src/job_manager.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "orchestrator/src/sweep_runner.h"
#include "orchestrator/src/sweep_variant.h"
#include "tests/orchestrator/job_manager_fixture.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

v1::Scenario Car() { return testing::OneCar(); }

v1::Sweep StopTimes(const std::string& linspace) {
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(
      R"({"scenario_file": "ignored.json",
          "parameters": [{"name": "stop_time", "linspace": )" +
      linspace + "}]}");
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return *sweep;
}

class SweepJobTest : public testing::JobManagerFixture {};

TEST_F(SweepJobTest, StatusCarriesTheSweepWithoutItsBaseAndItsVariants) {
  const v1::Sweep sweep = StopTimes("[1, 2, 4]");
  absl::StatusOr<std::string> id = jobs_->Submit(Car(), {}, nullptr, &sweep);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = jobs_->Get(*id);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->state(), v1::QUEUED);
  EXPECT_EQ(status->sweep().variants_total(), 4u);
  EXPECT_EQ(status->sweep().variants_done(), 0u);
  EXPECT_TRUE(status->sweep().sweep().scenario_file().empty());
  EXPECT_EQ(status->sweep().sweep().parameters(0).name(), "stop_time");
  EXPECT_EQ(status->workers_needed(), 1);
}

TEST_F(SweepJobTest, BadSweepIsRefusedNamingItsField) {
  const v1::Sweep zero = StopTimes("[1, 2, 0]");
  absl::StatusOr<std::string> id = jobs_->Submit(Car(), {}, nullptr, &zero);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(id.status().message(), HasSubstr("sweep.parameters[0].linspace: n must be >= 1"));
  v1::Sweep unknown = StopTimes("[1, 2, 2]");
  unknown.mutable_parameters(0)->set_name("nothing.here");
  id = jobs_->Submit(Car(), {}, nullptr, &unknown);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(id.status().message(), HasSubstr("sweep.parameters[0].name: "));
  const v1::Sweep many = StopTimes("[1, 2, 100001]");
  id = jobs_->Submit(Car(), {}, nullptr, &many);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(id.status().message(), HasSubstr("sweep.parameters: 100001 variants, more than"));
  v1::TrainingRequest training;
  id = jobs_->Submit(Car(), {}, &training, &many);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(id.status().message(), HasSubstr("not both"));
}

TEST_F(SweepJobTest, RunningSweepIsQueuedAgainAtARestart) {
  const v1::Sweep sweep = StopTimes("[1, 2, 2]");
  absl::StatusOr<std::string> id = jobs_->Submit(Car(), {}, nullptr, &sweep);
  ASSERT_TRUE(id.ok()) << id.status();
  v1::JobStatus running = *jobs_->Get(*id);
  running.set_state(v1::RUNNING);
  running.mutable_sweep()->set_variants_done(1);
  jobs_.reset();
  ASSERT_TRUE(store_->UpdateStatus(running).ok());
  Restart();
  ASSERT_TRUE(jobs_->Recover().ok());
  absl::StatusOr<v1::JobStatus> status = jobs_->Get(*id);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->state(), v1::RUNNING);  // waiting to resume, as a simulation does
  EXPECT_THAT(status->message(), HasSubstr("resuming (its finished variants kept) once it has "
                                           "workers; 1st of 1 in the queue; waiting for workers: "
                                           "needs 1"));
  EXPECT_EQ(jobs_->Count().queued, 1u);
}

TEST(SweepStoreTest, DeletingASweepJobDeletesItsVariantsResults) {
  std::unique_ptr<SqliteJobStore> store = *SqliteJobStore::Open("");
  StoredResults results;
  results.columns = {"time"};
  results.types = {ValueType::kReal};
  results.values = {0.0};
  for (const std::string id :
       {"job-a/variant-0", "job-a/variant-12", "job-a0", "job-ab/variant-0"}) {
    ASSERT_TRUE(store->PutResults(id, results).ok());
  }
  EXPECT_EQ(VariantResultsId("job-a", 12), "job-a/variant-12");
  ASSERT_TRUE(store->Delete("job-a").ok());
  EXPECT_EQ(store->LoadResults("job-a/variant-0").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store->LoadResults("job-a/variant-12").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(store->LoadResults("job-a0").ok());
  EXPECT_TRUE(store->LoadResults("job-ab/variant-0").ok());
}

TEST(SweepTableTest, ColumnsAndRowsAreThoseOfTheLocalTable) {
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(R"({"scenario_file": "x.json",
      "parameters": [{"name": "a.p", "values": [1]}, {"name": "stop_time", "values": [2]}],
      "kpis": [{"variable": "a.y", "kind": "MAX"}, {"name": "last", "variable": "a.y"}]})");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ResultTable table = SweepTableColumns(*sweep);
  EXPECT_EQ(table.columns, (std::vector<std::string>{"index", "a.p", "stop_time", "max(a.y)",
                                                     "last", "status", "wall_time_s", "message"}));
  VariantOutcome failed;
  failed.status = v1::FAILED;
  failed.message = "why";
  failed.wall_s = 0.5;
  AddSweepRow(&table, 3, {1, 2}, failed);
  ASSERT_EQ(table.values.size(), 8u);
  EXPECT_EQ(table.values[0], 3);
  EXPECT_TRUE(std::isnan(table.values[3]) && std::isnan(table.values[4]));
  EXPECT_EQ(table.values[6], 0.5);
  EXPECT_EQ(table.strings, (std::vector<std::string>{"FAILED", "why"}));
  EXPECT_EQ(NewSweepStatus(*sweep).variants_total(), 1u);
}

}  // namespace
}  // namespace cosimo::orchestrator
