// Rows streamed from the master to the job store as they are recorded (issue 40), in-process
// through the job's observer (JobObserver) and the SQLite store: a run of 10^6 rows appends them
// chunk by chunk while it runs (half of them stored when it is half way), its table never holding
// more than about a chunk (a bound that keeping every row passes by far), and the results read
// back are the CSV of the run that kept every row, byte for byte. A run stopped after rows past
// its checkpoint were stored (a lost worker) and resumed from that checkpoint, the store cut back
// to it first as SimulationRunner does, gives the same CSV. Rows the store cannot take stop the
// run with the store's error.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cosimo/common/results_proto.h"
#include "cosimo/common/scenario.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job_observer.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "tests/master/master_test_util.h"

namespace cosimo::orchestrator {
namespace {

using master::testing::LoadFor;
using master::testing::LocalJob;

constexpr size_t kChunkBytes = 4096;

// The car example with `steps` macro steps of 1 ms, a checkpoint every `checkpoint_every`.
v1::Scenario Car(int steps, int checkpoint_every) {
  absl::StatusOr<v1::Scenario> car =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  EXPECT_TRUE(car.ok()) << car.status();
  v1::Scenario s = car.ok() ? *car : v1::Scenario();
  s.mutable_algorithm()->set_step_size(0.001);
  s.mutable_algorithm()->set_checkpoint_every(checkpoint_every);
  s.mutable_units(1)->mutable_solver()->set_step(0.001);
  s.set_stop_time(0.001 * steps);
  return s;
}

absl::StatusOr<master::MasterResult> RunLocal(const v1::Scenario& scenario,
                                              master::MasterObserver* observer,
                                              const v1::JobCheckpoint* resume = nullptr) {
  LocalJob job;
  for (int u = 0; u < scenario.units_size(); ++u) {
    absl::StatusOr<std::unique_ptr<master::LocalUnit>> unit =
        master::LocalUnit::Create(LoadFor(scenario, u));
    if (!unit.ok()) return unit.status();
    job.Add(*std::move(unit));
  }
  return master::RunMaster(scenario, job.units, observer, resume);
}

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

// The job's observer in front, counting what reaches the store; `stop` says after which rows
// stored the run is stopped as a lost worker stops it (never: 0).
class Watching final : public master::MasterObserver {
 public:
  explicit Watching(JobObserver* job, uint64_t stop = 0) : job_(job), stop_(stop) {}
  void OnProgress(const master::Progress& p) override {
    job_->OnProgress(p);
    if (p.steps_accepted == half) rows_at_half = rows_stored;
  }
  bool Canceled() override { return (stop_ > 0 && rows_stored > stop_) || job_->Canceled(); }
  bool CheckpointDue() override { return job_->CheckpointDue(); }
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override {
    checkpoints.push_back(checkpoint);
    job_->OnCheckpoint(checkpoint);
  }
  size_t RowChunkBytes() override { return job_->RowChunkBytes(); }
  absl::Status OnRows(uint64_t first_row, const ResultTable& rows) override {
    largest_chunk = std::max<uint64_t>(largest_chunk, rows.rows());
    absl::Status s = job_->OnRows(first_row, rows);
    if (s.ok()) rows_stored = first_row + rows.rows();
    if (s.ok() && after_rows) after_rows(rows);
    return s;
  }
  bool RowsDue() override { return job_->RowsDue(); }

  uint64_t half = 0;
  uint64_t rows_at_half = 0;
  uint64_t rows_stored = 0;
  uint64_t largest_chunk = 0;
  std::vector<v1::JobCheckpoint> checkpoints;
  std::function<void(const ResultTable& rows)> after_rows;  // after each chunk stored

 private:
  JobObserver* job_;
  const uint64_t stop_;
};

class RowStreamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = *SqliteJobStore::Open("");
    v1::JobStatus status;
    status.set_job_id("job-1");
    ASSERT_TRUE(store_->Put(status, v1::Scenario()).ok());
  }

  std::unique_ptr<JobObserver> Observer() {
    auto job = std::make_unique<JobObserver>([](const master::Progress&) {}, &cancel_, nullptr,
                                             "job-1", Clock::Real(), 100'000'000, store_.get(),
                                             std::chrono::seconds(0));
    job->set_row_chunk_bytes(kChunkBytes);
    return job;
  }

  // The results as SimulationRunner stores them: the appended rows, then the record.
  std::string StoredCsv(const master::MasterResult& result) {
    StoredResults stored;
    stored.columns = result.columns;
    stored.types = result.types;
    stored.after_appended_rows = true;
    EXPECT_TRUE(store_->PutResults("job-1", stored).ok());
    absl::StatusOr<StoredResults> loaded = store_->LoadResults("job-1");
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return loaded.ok() ? Csv(*loaded) : "";
  }

  std::atomic<bool> cancel_{false};
  std::unique_ptr<SqliteJobStore> store_;
};

TEST_F(RowStreamingTest, AMillionRowsReachTheStoreInBoundedChunksWhileTheRunGoes) {
  const v1::Scenario scenario = Car(1'000'000, 0);
  absl::StatusOr<master::MasterResult> kept = RunLocal(scenario, nullptr);
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->rows(), 1'000'001u);

  std::unique_ptr<JobObserver> job = Observer();
  Watching observer(job.get());
  observer.half = 500'000;
  absl::StatusOr<master::MasterResult> streamed = RunLocal(scenario, &observer);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  ASSERT_TRUE(job->rows_error().ok()) << job->rows_error();
  EXPECT_EQ(streamed->rows(), 0u) << "every row went to the store";
  EXPECT_EQ(observer.rows_stored, 1'000'001u);

  // Half way, all but the rows of the chunk being filled were stored already.
  const uint64_t bound = kChunkBytes / (8 * kept->columns.size()) + 1;
  EXPECT_GE(observer.rows_at_half, 500'001u - bound);
  EXPECT_LE(observer.largest_chunk, bound);
  EXPECT_GT(streamed->rows_held_max, 0u);
  EXPECT_LE(streamed->rows_held_max, bound);
  EXPECT_GE(kept->rows_held_max, 1'000'001u) << "the bound is not met by accident";

  EXPECT_EQ(StoredCsv(*streamed), Csv(*kept));
}

// The rows so far of a running job (issue 42), read from the store while the run goes on: all of
// them, from a row in the middle of a chunk on, and a read its sink stops, each the rows of the
// results there, byte for byte.
TEST_F(RowStreamingTest, RowsSoFarReadWhileTheRunGoesAreThoseOfTheResults) {
  const v1::Scenario scenario = Car(20'000, 0);
  absl::StatusOr<master::MasterResult> kept = RunLocal(scenario, nullptr);
  ASSERT_TRUE(kept.ok()) << kept.status();
  std::unique_ptr<JobObserver> job = Observer();
  Watching observer(job.get());
  ResultTable so_far, from_middle;
  uint64_t middle = 0, stopped_after = 0, read_when = 0;
  observer.after_rows = [&](const ResultTable& rows) {
    if (observer.rows_stored < 10'000 || read_when > 0) return;
    read_when = observer.rows_stored;
    so_far.columns = from_middle.columns = rows.columns;
    so_far.types = from_middle.types = rows.types;
    ASSERT_TRUE(store_
                    ->ReadRows("job-1", 0,
                               [&](uint64_t, uint64_t, const v1::ResultRows& chunk) {
                                 AppendRows(chunk, &so_far);
                                 return true;
                               })
                    .ok());
    middle = observer.rows_stored / 2 + 7;  // inside a chunk
    ASSERT_TRUE(store_
                    ->ReadRows("job-1", middle,
                               [&](uint64_t first, uint64_t count, const v1::ResultRows& chunk) {
                                 EXPECT_EQ(first, middle + from_middle.rows());
                                 AppendRows(chunk, &from_middle);
                                 EXPECT_EQ(from_middle.rows(), first - middle + count);
                                 return true;
                               })
                    .ok());
    ASSERT_TRUE(store_
                    ->ReadRows("job-1", 0,
                               [&](uint64_t first, uint64_t count, const v1::ResultRows&) {
                                 stopped_after = first + count;
                                 return false;
                               })
                    .ok());
  };
  absl::StatusOr<master::MasterResult> streamed = RunLocal(scenario, &observer);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  ASSERT_GE(read_when, 10'000u);
  ASSERT_LT(read_when, 20'001u) << "read while it ran";
  EXPECT_EQ(so_far.rows(), read_when);
  EXPECT_EQ(from_middle.rows(), read_when - middle);
  EXPECT_LT(stopped_after, read_when) << "a sink that says stop gets one chunk";
  const std::string results = StoredCsv(*streamed);
  ASSERT_EQ(results, Csv(*kept));
  const std::string prefix = Csv(so_far);
  EXPECT_EQ(results.substr(0, prefix.size()), prefix);
  // From `middle` on: the results' lines after the header and the rows before it.
  std::string tail = Csv(from_middle);
  tail = tail.substr(tail.find('\n') + 1);
  size_t at = 0;
  for (uint64_t line = 0; line <= middle; ++line) at = results.find('\n', at) + 1;
  EXPECT_EQ(results.substr(at, tail.size()), tail);
  absl::StatusOr<uint64_t> appended = store_->AppendedRows("job-1");
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(*appended, 20'001u);
}

// A run streams its first rows at once, then at least every kRowsInterval of wall time, fewer
// than a chunk: the rows so far lag the run by no more than that (a clock the test moves).
TEST(RowStreamingStoreTest, RowsGoToTheStoreByWallTimeToo) {
  std::unique_ptr<SqliteJobStore> store = *SqliteJobStore::Open("");
  ManualClock clock;
  std::atomic<bool> cancel{false};
  JobObserver job([](const master::Progress&) {}, &cancel, nullptr, "job-1", &clock, 100'000'000,
                  store.get(), std::chrono::seconds(0));
  EXPECT_TRUE(job.RowsDue()) << "the first rows at once: they name the columns";
  job.OnColumns(v1::ResultsHeader());
  EXPECT_FALSE(job.RowsDue());
  clock.Advance(kRowsInterval);
  EXPECT_TRUE(job.RowsDue());
  v1::ResultRows rows;
  rows.add_values(0.0);
  ASSERT_TRUE(job.AppendRows(0, 1, rows).ok());
  EXPECT_FALSE(job.RowsDue()) << "the interval runs from the latest chunk";
}

TEST_F(RowStreamingTest, AResumedRunDropsTheRowsStoredPastItsCheckpoint) {
  const v1::Scenario scenario = Car(20'000, 5'000);
  absl::StatusOr<master::MasterResult> kept = RunLocal(scenario, nullptr);
  ASSERT_TRUE(kept.ok()) << kept.status();

  // Stopped once 2,000 rows past the second checkpoint (row 10,001) were stored.
  std::unique_ptr<JobObserver> first = Observer();
  Watching lost(first.get(), 12'001);
  absl::StatusOr<master::MasterResult> stopped = RunLocal(scenario, &lost);
  ASSERT_EQ(stopped.status().code(), absl::StatusCode::kCancelled) << stopped.status();
  ASSERT_EQ(lost.checkpoints.size(), 2u);
  EXPECT_GT(lost.rows_stored, 12'001u);

  absl::StatusOr<v1::JobCheckpoint> checkpoint = store_->LoadCheckpoint("job-1");
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_EQ(checkpoint->rows_streamed(), 10'001u);
  EXPECT_EQ(checkpoint->values_size(), 0) << "its rows are in the store, not in it";
  EXPECT_EQ(store_->AppendRows("job-1", 10'001, 0, v1::ResultRows()).code(),
            absl::StatusCode::kFailedPrecondition)
      << "the rows past it are still there";
  ASSERT_TRUE(store_->TruncateRows("job-1", checkpoint->rows_streamed()).ok());

  std::unique_ptr<JobObserver> second = Observer();
  second->ResumedFrom(*checkpoint);
  Watching resumed_observer(second.get());
  absl::StatusOr<master::MasterResult> resumed =
      RunLocal(scenario, &resumed_observer, &*checkpoint);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  ASSERT_TRUE(second->rows_error().ok()) << second->rows_error();
  EXPECT_EQ(resumed->steps_accepted, kept->steps_accepted);
  EXPECT_EQ(StoredCsv(*resumed), Csv(*kept));
}

TEST(RowStreamingStoreTest, RowsTheStoreCannotTakeStopTheRunWithItsError) {
  // SQLite's blob limit below one chunk: the first full chunk fails (the first two rows, which
  // name the columns, go at once and fit).
  std::unique_ptr<SqliteJobStore> store = *SqliteJobStore::Open("", {.max_blob_bytes = 1000});
  std::atomic<bool> cancel{false};
  JobObserver job([](const master::Progress&) {}, &cancel, nullptr, "job-1", Clock::Real(),
                  100'000'000, store.get(), std::chrono::seconds(0));
  job.set_row_chunk_bytes(kChunkBytes);
  absl::StatusOr<master::MasterResult> result = RunLocal(Car(2'000, 0), &job);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), job.rows_error());
  EXPECT_NE(job.rows_error().message().find("rows 2 to "), std::string::npos) << job.rows_error();
  EXPECT_LT(job.last().steps_accepted, 1'000u) << "stopped at the first full chunk";
}

// A run whose rows stream cannot resume from a checkpoint without the store: it says so.
TEST_F(RowStreamingTest, AStreamedCheckpointDoesNotResumeARunThatKeepsItsRows) {
  const v1::Scenario scenario = Car(2'000, 1'000);
  std::unique_ptr<JobObserver> job = Observer();
  Watching observer(job.get());
  ASSERT_TRUE(RunLocal(scenario, &observer).ok());
  ASSERT_FALSE(observer.checkpoints.empty());
  absl::StatusOr<master::MasterResult> resumed =
      RunLocal(scenario, nullptr, &observer.checkpoints.front());
  EXPECT_EQ(resumed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(resumed.status().message().find("streamed"), std::string::npos) << resumed.status();
}

}  // namespace
}  // namespace cosimo::orchestrator
