// The Scheduler over fake workers and a manual clock: a job that gets its workers is started
// RUNNING with its lease; one the pool is too small for fails after the unschedulable timeout by
// the clock, not a second before, and says so meanwhile; busy workers are no reason to fail; a
// canceled job leaves the queue; a resuming job goes first. No threads, no sleeps.
#include "orchestrator/src/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "orchestrator/src/sqlite_job_store.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::StartsWith;
using namespace std::chrono_literals;

// Workers by count of slots: `attached` slots in the pool, `idle` of them free. Labels match any.
class FakeWorkers final : public WorkerSource {
 public:
  int attached = 0;
  int idle = 0;
  int released = 0;  // leases given back

  std::optional<WorkerLease> TryAcquire(const std::vector<std::string>& labels,
                                        const std::string&) override {
    const int needed = static_cast<int>(labels.size());
    if (needed > idle) return std::nullopt;
    idle -= needed;
    return WorkerLease(WorkerLease::Workers(labels.size()), [this, needed](const auto&) {
      ++released;
      idle += needed;
    });
  }
  int CountAvailable(const std::vector<std::string>& labels) const override {
    return std::min(idle, static_cast<int>(labels.size()));
  }
  int CountMatching(const std::vector<std::string>& labels) const override {
    return std::min(attached, static_cast<int>(labels.size()));
  }
};

v1::Scenario Units(int n) {
  v1::Scenario s;
  for (int i = 0; i < n; ++i) {
    v1::Unit* unit = s.add_units();
    unit->set_name("u" + std::to_string(i));
    unit->mutable_builtin()->set_model("car");
  }
  return s;
}

class SchedulerTest : public ::testing::Test {
 protected:
  std::shared_ptr<Job> Queued(const std::string& id, int units) {
    v1::JobStatus status;
    status.set_job_id(id);
    status.set_state(v1::QUEUED);
    const v1::Scenario scenario = Units(units);
    EXPECT_TRUE(store_->Put(status, scenario).ok());
    return std::make_shared<Job>(status, scenario);
  }
  std::unique_ptr<SqliteJobStore> store_ = *SqliteJobStore::Open("");
  ManualClock clock_;
  JobRecorder recorder_{store_.get(), &clock_, [] { return false; }};
  FakeWorkers workers_;
};

TEST_F(SchedulerTest, AJobThatGetsItsWorkersStartsRunningWithItsLease) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  workers_.attached = workers_.idle = 3;
  std::shared_ptr<Job> job = Queued("job-a", 2);
  scheduler.Add(job);
  std::vector<Scheduler::Start> started = scheduler.Pass();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].job, job);
  EXPECT_EQ(started[0].lease.workers().size(), 2u);
  EXPECT_EQ(scheduler.size(), 0u);
  const v1::JobStatus status = job->Status();
  EXPECT_EQ(status.state(), v1::RUNNING);
  EXPECT_EQ(status.message(), "");
  {
    absl::ReaderMutexLock lock(&job->mutex);
    EXPECT_EQ(job->started_unix_ms, clock_.UnixMs());
  }
  EXPECT_EQ(store_->LoadAll()->front().status.state(), v1::RUNNING) << "recorded";
  started.clear();  // the job thread's end
  EXPECT_EQ(workers_.released, 1);
  EXPECT_EQ(workers_.idle, 3);
}

TEST_F(SchedulerTest, AJobThePoolIsTooSmallForFailsAfterTheTimeoutByTheClock) {
  Scheduler scheduler(&workers_, &recorder_, 120s);
  workers_.attached = workers_.idle = 1;
  std::shared_ptr<Job> job = Queued("job-big", 2);
  scheduler.Add(job);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().message(),
            "cannot be scheduled yet: needs 2 workers, the pool has 1; fails if no more attach "
            "within 120 s");
  EXPECT_EQ(job->Status().workers_available(), 1);
  clock_.Advance(119s);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().state(), v1::QUEUED);
  EXPECT_EQ(scheduler.size(), 1u);
  clock_.Advance(1s);
  EXPECT_TRUE(scheduler.Pass().empty());
  const v1::JobStatus failed = job->Status();
  EXPECT_EQ(failed.state(), v1::FAILED);
  EXPECT_EQ(failed.message(),
            "cannot be scheduled: needs 2 workers, the pool has 1 (waited 120 s for more to "
            "attach; see --unschedulable-timeout-s)");
  EXPECT_EQ(failed.finished_unix_ms(), clock_.UnixMs());
  EXPECT_EQ(scheduler.size(), 0u);
  EXPECT_EQ(workers_.idle, 1) << "no worker taken";
}

// The pool has enough workers, all busy: the job waits however long that lasts.
TEST_F(SchedulerTest, BusyWorkersAreNoReasonToFail) {
  Scheduler scheduler(&workers_, &recorder_, 10s);
  workers_.attached = 2;
  std::shared_ptr<Job> job = Queued("job-wait", 2);
  scheduler.Add(job);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().message(), "waiting for workers: needs 2, 0 idle and matching");
  clock_.Advance(1h);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().state(), v1::QUEUED);
  workers_.idle = 2;
  EXPECT_EQ(scheduler.Pass().size(), 1u);
}

// The timeout counts from when the pool became too small, and starts again once it is not.
TEST_F(SchedulerTest, TheTimeoutStartsAgainWhenThePoolWasLargeEnoughMeanwhile) {
  Scheduler scheduler(&workers_, &recorder_, 60s);
  std::shared_ptr<Job> job = Queued("job-a", 1);
  scheduler.Add(job);
  EXPECT_TRUE(scheduler.Pass().empty());
  clock_.Advance(50s);
  workers_.attached = 1;  // attached, but busy
  EXPECT_TRUE(scheduler.Pass().empty());
  workers_.attached = 0;  // gone again: 60 s from now
  clock_.Advance(50s);
  EXPECT_TRUE(scheduler.Pass().empty());
  clock_.Advance(59s);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().state(), v1::QUEUED);
  clock_.Advance(1s);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(job->Status().state(), v1::FAILED);
}

TEST_F(SchedulerTest, ACanceledJobLeavesTheQueueWithoutWorkers) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  workers_.attached = workers_.idle = 1;
  std::shared_ptr<Job> job = Queued("job-a", 1);
  scheduler.Add(job);
  job->cancel = true;
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_EQ(scheduler.size(), 0u);
  EXPECT_EQ(workers_.idle, 1);
}

TEST_F(SchedulerTest, AResumingJobGoesFirstAndSaysSo) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  std::shared_ptr<Job> waiting = Queued("job-waiting", 1);
  std::shared_ptr<Job> resuming = Queued("job-resuming", 1);
  {
    absl::MutexLock lock(&resuming->mutex);
    resuming->status.set_state(v1::RUNNING);
    resuming->resuming = true;
  }
  scheduler.Add(waiting);
  scheduler.AddFirst(resuming);
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_THAT(resuming->Status().message(),
              StartsWith("resuming from its checkpoint once it has workers; waiting for workers"));
  workers_.attached = workers_.idle = 1;
  std::vector<Scheduler::Start> started = scheduler.Pass();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].job, resuming);
  EXPECT_EQ(scheduler.QueuedBy(""), 1);
  EXPECT_TRUE(scheduler.Remove(*waiting));
  EXPECT_FALSE(scheduler.Remove(*waiting));
}

}  // namespace
}  // namespace cosimo::orchestrator
