// JobManager without workers: listing a page at a time, ids that name no job, expiry by a manual
// clock, the unschedulable timeout, what a failed write to the store does to a job, owners and
// who may cancel or delete, and the limits of a job and a client. Jobs stay
// queued (the pool is empty), so no master runs here.
#include "orchestrator/src/job_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "orchestrator/src/sqlite_job_store.h"
#include "tests/orchestrator/job_manager_fixture.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

// A store in memory whose status writes fail while `fail_updates` is set, as a full disk does.
class FlakyJobStore final : public JobStore {
 public:
  FlakyJobStore() : store_(*SqliteJobStore::Open("")) {}

  std::atomic<bool> fail_updates{false};

  absl::Status Put(const v1::JobStatus& status, const v1::Scenario& scenario) override {
    return store_->Put(status, scenario);
  }
  absl::Status UpdateStatus(const v1::JobStatus& status) override {
    if (fail_updates) return absl::ResourceExhaustedError("database or disk is full");
    return store_->UpdateStatus(status);
  }
  absl::Status PutResults(const std::string& job_id, const StoredResults& results) override {
    return store_->PutResults(job_id, results);
  }
  absl::Status AppendRows(const std::string& job_id, uint64_t first_row, uint64_t row_count,
                          const v1::ResultRows& rows) override {
    return store_->AppendRows(job_id, first_row, row_count, rows);
  }
  absl::Status TruncateRows(const std::string& job_id, uint64_t rows) override {
    return store_->TruncateRows(job_id, rows);
  }
  absl::Status ReadRows(const std::string& job_id, uint64_t first_row,
                        const RowChunkSink& sink) override {
    return store_->ReadRows(job_id, first_row, sink);
  }
  absl::StatusOr<uint64_t> AppendedRows(const std::string& job_id) override {
    return store_->AppendedRows(job_id);
  }
  absl::StatusOr<std::vector<StoredJob>> LoadAll() override { return store_->LoadAll(); }
  absl::StatusOr<v1::Scenario> LoadScenario(const std::string& job_id) override {
    return store_->LoadScenario(job_id);
  }
  absl::StatusOr<StoredResults> LoadResults(const std::string& job_id) override {
    return store_->LoadResults(job_id);
  }
  absl::StatusOr<StoredResults> LoadResultsHead(const std::string& job_id) override {
    return store_->LoadResultsHead(job_id);
  }
  absl::Status PutCalibrationSamples(const std::string& job_id,
                                     const v1::CalibrationJob& samples) override {
    return store_->PutCalibrationSamples(job_id, samples);
  }
  absl::StatusOr<v1::CalibrationJob> LoadCalibrationSamples(const std::string& job_id) override {
    return store_->LoadCalibrationSamples(job_id);
  }
  absl::Status PutTrainingResult(const std::string& job_id,
                                 const v1::TrainingResult& result) override {
    return store_->PutTrainingResult(job_id, result);
  }
  absl::StatusOr<v1::TrainingResult> LoadTrainingResult(const std::string& job_id) override {
    return store_->LoadTrainingResult(job_id);
  }
  absl::Status Delete(const std::string& job_id) override { return store_->Delete(job_id); }
  absl::Status PutCheckpoint(const std::string& job_id,
                             const v1::JobCheckpoint& checkpoint) override {
    return store_->PutCheckpoint(job_id, checkpoint);
  }
  absl::StatusOr<v1::JobCheckpoint> LoadCheckpoint(const std::string& job_id) override {
    return store_->LoadCheckpoint(job_id);
  }
  absl::Status DeleteCheckpoint(const std::string& job_id) override {
    return store_->DeleteCheckpoint(job_id);
  }

 private:
  std::unique_ptr<SqliteJobStore> store_;
};

v1::Scenario OneUnit() { return testing::OneCar(); }

class JobManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("cosimo_job_manager_" + std::to_string(getpid())))
               .string();
    artifacts_ = std::make_unique<ArtifactStore>(dir_);
    Restart();
  }
  void TearDown() override {
    jobs_.reset();
    std::filesystem::remove_all(dir_);
  }
  // A new manager over the same store (its jobs recovered by the test when it wants them).
  void Restart(std::chrono::seconds unschedulable_timeout = 0s) {
    jobs_.reset();
    jobs_ = std::make_unique<JobManager>(&pool_, &store_, artifacts_.get(), unschedulable_timeout,
                                         0ms, nullptr, &clock_, limits_);
  }
  JobLimits limits_;  // what Restart gives the manager
  ManualClock clock_;
  WorkerPool pool_{std::chrono::milliseconds(10000), &clock_};
  FlakyJobStore store_;
  std::string dir_;
  std::unique_ptr<ArtifactStore> artifacts_;
  std::unique_ptr<JobManager> jobs_;
};

// 250 jobs come in pages of 100, 100 and 50, newest first, each job once (many share their
// submission millisecond: ties are ordered by id).
TEST_F(JobManagerTest, ListsAPageAtATimeNewestFirst) {
  for (int i = 0; i < 250; ++i) ASSERT_TRUE(jobs_->Submit(OneUnit()).ok());
  std::set<std::string> seen;
  std::vector<size_t> sizes;
  std::string token;
  int64_t previous_ms = std::numeric_limits<int64_t>::max();
  do {
    absl::StatusOr<JobManager::JobPage> page = jobs_->List(0, token);
    ASSERT_TRUE(page.ok()) << page.status();
    sizes.push_back(page->jobs.size());
    for (const v1::JobStatus& st : page->jobs) {
      EXPECT_TRUE(seen.insert(st.job_id()).second) << st.job_id() << " listed twice";
      EXPECT_LE(st.submitted_unix_ms(), previous_ms);
      previous_ms = st.submitted_unix_ms();
    }
    token = page->next_page_token;
  } while (!token.empty());
  EXPECT_THAT(sizes, ::testing::ElementsAre(100, 100, 50));
  EXPECT_EQ(seen.size(), 250u);
  // A page size over the maximum is held to it; a token not given by the server is refused.
  EXPECT_EQ(jobs_->List(100000, "")->jobs.size(), 250u);
  EXPECT_EQ(jobs_->List(7, "")->jobs.size(), 7u);
  EXPECT_EQ(jobs_->List(0, "garbage").status().code(), absl::StatusCode::kInvalidArgument);
}

// An id that names no job is quoted only in part (a 60 MB id was echoed back whole).
TEST_F(JobManagerTest, UnknownIdsAreQuotedInPart) {
  absl::StatusOr<v1::JobStatus> status = jobs_->Get("job-nope");
  EXPECT_EQ(status.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.status().message(), "unknown job id 'job-nope'");
  const std::string huge(1 << 20, 'j');
  for (const absl::Status& s : {jobs_->Get(huge).status(), jobs_->Cancel(huge).status(),
                                jobs_->Delete(huge), jobs_->Results(huge).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
    EXPECT_LT(s.message().size(), 200u);
    EXPECT_THAT(std::string(s.message()), HasSubstr("(1048576 bytes)"));
  }
}

// A job that ended is deleted once it ended longer ago than the retention period, by the clock
// (this slept through a 1 s retention and flaked under load); a queued one stays.
TEST_F(JobManagerTest, JobsAreExpiredOnceTheyEndedLongerAgoThanTheRetentionPeriod) {
  absl::StatusOr<std::string> ended = jobs_->Submit(OneUnit());
  absl::StatusOr<std::string> queued = jobs_->Submit(OneUnit());
  ASSERT_TRUE(ended.ok() && queued.ok());
  clock_.Advance(5s);
  absl::StatusOr<v1::JobStatus> canceled = jobs_->Cancel(*ended);
  ASSERT_TRUE(canceled.ok()) << canceled.status();
  EXPECT_EQ(canceled->state(), v1::CANCELED);
  EXPECT_EQ(canceled->finished_unix_ms(), clock_.UnixMs());
  EXPECT_EQ(canceled->finished_unix_ms() - canceled->submitted_unix_ms(), 5000);

  clock_.Advance(1h);  // ended exactly one retention period ago: kept
  EXPECT_TRUE(jobs_->ExpireJobs(1h).empty());
  clock_.Advance(1ms);
  EXPECT_THAT(jobs_->ExpireJobs(1h), ::testing::ElementsAre(*ended));
  EXPECT_EQ(jobs_->Get(*ended).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_.LoadScenario(*ended).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<v1::JobStatus> still = jobs_->Get(*queued);
  ASSERT_TRUE(still.ok()) << still.status();
  EXPECT_EQ(still->state(), v1::QUEUED);
  EXPECT_EQ(still->finished_unix_ms(), 0);

  // Recovered from the store after a restart, the queued job stays too.
  Restart();
  ASSERT_TRUE(jobs_->Recover().ok());
  clock_.Advance(24h);
  EXPECT_TRUE(jobs_->ExpireJobs(1h).empty());
  EXPECT_EQ(jobs_->Get(*queued)->state(), v1::QUEUED);
}

// A job that needs more workers than the pool has fails once that lasted the unschedulable
// timeout by the clock, not before. (Every submit schedules the queue, as the manager's ticker
// does every second.)
TEST_F(JobManagerTest, AJobThePoolIsTooSmallForFailsAfterTheUnschedulableTimeout) {
  Restart(120s);
  absl::StatusOr<std::string> id = jobs_->Submit(OneUnit());
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_THAT(jobs_->Get(*id)->message(), HasSubstr("fails if no more attach within 120 s"));
  clock_.Advance(119s);
  absl::StatusOr<std::string> later = jobs_->Submit(OneUnit());
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(jobs_->Get(*id)->state(), v1::QUEUED);
  clock_.Advance(1s);
  ASSERT_TRUE(jobs_->Submit(OneUnit()).ok());
  absl::StatusOr<v1::JobStatus> failed = jobs_->Get(*id);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->state(), v1::FAILED);
  EXPECT_THAT(failed->message(), HasSubstr("cannot be scheduled: needs 1 workers, the pool has 0"));
  EXPECT_EQ(failed->finished_unix_ms(), clock_.UnixMs());
  EXPECT_EQ(jobs_->Get(*later)->state(), v1::QUEUED);  // it waited 1 s only
}

// A status the store cannot write fails the job, saying so, instead of being ignored (a restart
// would have shown the job as it was before).
TEST_F(JobManagerTest, AStatusTheStoreCannotWriteFailsTheJobNamingTheStoresError) {
  absl::StatusOr<std::string> id = jobs_->Submit(OneUnit());
  ASSERT_TRUE(id.ok()) << id.status();
  store_.fail_updates = true;
  absl::StatusOr<v1::JobStatus> status = jobs_->Cancel(*id);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(),
              StartsWith("its record could not be stored: database or disk is full"));
  EXPECT_THAT(status->message(), HasSubstr("(canceled before it started)"));
  EXPECT_EQ(jobs_->Get(*id)->message(), status->message());
}

// A job that was running when the orchestrator stopped is failed on recovery; when that cannot
// be written either, its message says both.
TEST_F(JobManagerTest, ARecoveredRunningJobWhoseFailureCannotBeWrittenSaysBoth) {
  v1::JobStatus running;
  running.set_job_id("job-running");
  running.set_state(v1::RUNNING);
  running.set_time(2.5);
  ASSERT_TRUE(store_.Put(running, OneUnit()).ok());
  store_.fail_updates = true;
  Restart();
  ASSERT_TRUE(jobs_->Recover().ok());
  absl::StatusOr<v1::JobStatus> status = jobs_->Get("job-running");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(),
              StartsWith("its record could not be stored: database or disk is full"));
  EXPECT_THAT(status->message(), HasSubstr("the orchestrator restarted while the job was running"));
}

// A job running when the orchestrator died, with a checkpoint: recovered RUNNING, waiting for
// workers to resume, and cancelable meanwhile (its checkpoint goes with it).
TEST_F(JobManagerTest, ARecoveredRunningJobWithACheckpointWaitsToResume) {
  v1::JobStatus running;
  running.set_job_id("job-running");
  running.set_state(v1::RUNNING);
  ASSERT_TRUE(store_.Put(running, OneUnit()).ok());
  v1::JobCheckpoint checkpoint;
  checkpoint.set_time(0.5);
  ASSERT_TRUE(store_.PutCheckpoint("job-running", checkpoint).ok());
  Restart();
  ASSERT_TRUE(jobs_->Recover().ok());
  absl::StatusOr<v1::JobStatus> status = jobs_->Get("job-running");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::RUNNING);
  EXPECT_THAT(status->message(), HasSubstr("resuming from its checkpoint once it has workers"));
  status = jobs_->Cancel("job-running", Caller{"ops", true});
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::CANCELED);
  EXPECT_EQ(status->message(), "canceled while it waited to resume");
  EXPECT_EQ(store_.LoadCheckpoint("job-running").status().code(), absl::StatusCode::kNotFound);
}

// No worker to resume on: the job fails after the unschedulable timeout, saying it could not
// resume.
TEST_F(JobManagerTest, AJobThatCannotGetWorkersToResumeFailsAfterTheUnschedulableTimeout) {
  v1::JobStatus running;
  running.set_job_id("job-running");
  running.set_state(v1::RUNNING);
  ASSERT_TRUE(store_.Put(running, OneUnit()).ok());
  ASSERT_TRUE(store_.PutCheckpoint("job-running", v1::JobCheckpoint()).ok());
  Restart(120s);
  ASSERT_TRUE(jobs_->Recover().ok());
  EXPECT_EQ(jobs_->Get("job-running")->state(), v1::RUNNING);
  clock_.Advance(120s);
  ASSERT_TRUE(jobs_->Submit(OneUnit()).ok());  // schedules
  absl::StatusOr<v1::JobStatus> failed = jobs_->Get("job-running");
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->state(), v1::FAILED);
  EXPECT_THAT(failed->message(), StartsWith("could not resume: cannot be scheduled"));
  EXPECT_EQ(store_.LoadCheckpoint("job-running").status().code(), absl::StatusCode::kNotFound);
}

// A job records who submitted it; another client may neither cancel nor delete it (the error
// names the owner and the rule), an admin may do both, and the owner survives a restart.
TEST_F(JobManagerTest, OnlyTheOwnerOrAnAdminCancelsOrDeletesAJob) {
  const Caller alice{"alice", false}, bob{"bob", false}, ops{"ops", true};
  absl::StatusOr<std::string> id = jobs_->Submit(OneUnit(), alice);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(jobs_->Get(*id)->owner(), "alice");

  absl::StatusOr<v1::JobStatus> refused = jobs_->Cancel(*id, bob);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(refused.status().message()),
              AllOf(HasSubstr("belongs to 'alice', not to 'bob'"),
                    HasSubstr("may cancel only its own jobs unless its token is an admin's")));
  EXPECT_EQ(jobs_->Get(*id)->state(), v1::QUEUED);
  ASSERT_EQ(jobs_->Cancel(*id, alice)->state(), v1::CANCELED);

  const absl::Status not_bobs = jobs_->Delete(*id, bob);
  EXPECT_EQ(not_bobs.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(not_bobs.message()), HasSubstr("may delete only its own jobs"));

  absl::StatusOr<std::string> other = jobs_->Submit(OneUnit(), bob);
  ASSERT_TRUE(other.ok()) << other.status();
  Restart();
  ASSERT_TRUE(jobs_->Recover().ok());
  EXPECT_EQ(jobs_->Get(*other)->owner(), "bob");
  EXPECT_EQ(jobs_->Cancel(*other, alice).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(jobs_->Cancel(*other, ops)->state(), v1::CANCELED);
  EXPECT_TRUE(jobs_->Delete(*id, ops).ok());
  EXPECT_TRUE(jobs_->Delete(*other, bob).ok());
}

// A job recorded without an owner (before owners were) is an admin's to cancel.
TEST_F(JobManagerTest, AJobWithoutAnOwnerIsAnAdminsToCancel) {
  absl::StatusOr<std::string> id = jobs_->Submit(OneUnit());  // no tokens: no name
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(jobs_->Get(*id)->owner(), "");
  absl::StatusOr<v1::JobStatus> refused = jobs_->Cancel(*id, Caller{"alice", false});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("has no recorded owner"));
  EXPECT_EQ(jobs_->Cancel(*id, Caller{"ops", true})->state(), v1::CANCELED);
}

// Each limit checked at submission refuses a job over it with RESOURCE_EXHAUSTED naming the flag
// that raises it; a job within every limit is queued. (Recorded rows are counted as a job runs:
// tests/integration/limits_test.cc.)
TEST_F(JobManagerTest, JobsOverALimitAreRefusedNamingTheFlag) {
  limits_.max_scenario_bytes = 1024;
  limits_.max_units = 2;
  limits_.max_queued_per_client = 2;
  Restart();
  auto expect_refused = [&](const v1::Scenario& scenario, const Caller& caller,
                            const std::string& says, const std::string& flag) {
    absl::StatusOr<std::string> id = jobs_->Submit(scenario, caller);
    ASSERT_FALSE(id.ok()) << says;
    EXPECT_EQ(id.status().code(), absl::StatusCode::kResourceExhausted) << id.status();
    EXPECT_THAT(std::string(id.status().message()), AllOf(HasSubstr(says), HasSubstr(flag)));
  };
  v1::Scenario big = OneUnit();
  big.set_name(std::string(2000, 'x'));
  expect_refused(big, {}, "bytes (serialized), more than this orchestrator accepts: 1 KiB",
                 "--max-scenario-kb");
  v1::Scenario three = OneUnit();
  *three.add_units() = three.units(0);
  *three.add_units() = three.units(0);
  expect_refused(three, {}, "has 3 units, more than this orchestrator runs in one job: 2",
                 "--max-units-per-job");

  const Caller alice{"alice", false}, bob{"bob", false};
  ASSERT_TRUE(jobs_->Submit(OneUnit(), alice).ok());
  absl::StatusOr<std::string> second = jobs_->Submit(OneUnit(), alice);
  ASSERT_TRUE(second.ok()) << second.status();
  expect_refused(OneUnit(), alice, "client 'alice' has 2 jobs queued",
                 "--max-queued-jobs-per-client");
  EXPECT_TRUE(jobs_->Submit(OneUnit(), bob).ok()) << "bob's queue is his own";
  ASSERT_TRUE(jobs_->Cancel(*second, alice).ok());
  EXPECT_TRUE(jobs_->Submit(OneUnit(), alice).ok()) << "a canceled job no longer counts";
}

// Submits at once cannot pass a client's queue limit together: the store is written outside the
// manager's lock, but a submit counts the others still writing theirs.
TEST_F(JobManagerTest, ConcurrentSubmitsStopAtTheQueueLimit) {
  limits_.max_queued_per_client = 5;
  Restart();
  std::atomic<int> accepted{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        absl::StatusOr<std::string> id = jobs_->Submit(OneUnit(), Caller{"alice", false});
        (id.ok() ? accepted : refused)++;
        if (!id.ok()) {
          EXPECT_EQ(id.status().code(), absl::StatusCode::kResourceExhausted) << id.status();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(accepted, 5);
  EXPECT_EQ(refused, 35);
  EXPECT_EQ(jobs_->Count().queued, 5u);
}

}  // namespace
}  // namespace cosimo::orchestrator
