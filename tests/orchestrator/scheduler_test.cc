// The Scheduler over fake workers and a manual clock: a job that gets its workers is started
// RUNNING with its lease; one the pool is too small for fails after the unschedulable timeout by
// the clock, not a second before, and says so meanwhile; busy workers are no reason to fail; a
// canceled job leaves the queue; a resuming job goes first; a waiting job's message says its
// place in the queue; a job whose last run is still ending waits for it. The pool's share
// (DecideShare) on its own. No threads, no sleeps.
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
  EXPECT_EQ(
      job->Status().message(),
      "1st of 1 in the queue; cannot be scheduled yet: needs 2 workers, the pool has 1; fails "
      "if no more attach within 120 s");
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
  EXPECT_EQ(job->Status().message(),
            "1st of 1 in the queue; waiting for workers: needs 2, 0 idle and matching");
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
              StartsWith("resuming from its checkpoint once it has workers; 1st of 2 in the queue; "
                         "waiting for workers"));
  workers_.attached = workers_.idle = 1;
  std::vector<Scheduler::Start> started = scheduler.Pass();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].job, resuming);
  EXPECT_EQ(scheduler.QueuedBy(""), 1);
  EXPECT_TRUE(scheduler.Remove(*waiting));
  EXPECT_FALSE(scheduler.Remove(*waiting));
}

// A sweep or fit resumed just after a client saw it canceled: its last run may still be ending
// (leaving the shares of the pool). It waits for that end, keeping its place, and does not
// hold up the jobs behind it. Before, the two runs overlapped, and the end of the old one took
// the new one out of the shares: it gave its workers back and waited for ever.
TEST_F(SchedulerTest, AJobWhoseLastRunIsStillEndingStartsAfterItKeepingItsPlace) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  workers_.attached = workers_.idle = 2;
  std::shared_ptr<Job> resumed = Queued("job-resumed", 1);
  std::shared_ptr<Job> other = Queued("job-other", 1);
  resumed->run_active = true;
  scheduler.Add(resumed);
  scheduler.Add(other);
  std::vector<Scheduler::Start> started = scheduler.Pass();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].job, other);
  EXPECT_EQ(resumed->State(), v1::QUEUED);
  EXPECT_EQ(scheduler.size(), 1u);
  EXPECT_TRUE(scheduler.Pass().empty()) << "its last run has not ended";
  resumed->run_active = false;
  started = scheduler.Pass();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].job, resumed);
  EXPECT_EQ(resumed->State(), v1::RUNNING);
}

// Issue 41 item 10: a queued job's message says where it is in the queue, among the jobs that
// have not started, counted again at every pass.
TEST_F(SchedulerTest, AWaitingJobsMessageSaysItsPlaceInTheQueue) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  workers_.attached = 3;
  workers_.idle = 1;
  std::shared_ptr<Job> a = Queued("job-a", 1);
  std::shared_ptr<Job> b = Queued("job-b", 2);
  std::shared_ptr<Job> c = Queued("job-c", 2);
  std::shared_ptr<Job> d = Queued("job-d", 2);
  for (const auto& job : {a, b, c, d}) scheduler.Add(job);
  ASSERT_EQ(scheduler.Pass().size(), 1u);  // a starts
  EXPECT_EQ(b->Status().message(),
            "1st of 3 in the queue; waiting for workers: needs 2, 0 idle and matching");
  EXPECT_EQ(c->Status().message(),
            "2nd of 3 in the queue; waiting for workers: needs 2, 0 idle and matching");
  EXPECT_THAT(d->Status().message(), StartsWith("3rd of 3 in the queue; "));
  c->cancel = true;
  EXPECT_TRUE(scheduler.Pass().empty());
  EXPECT_THAT(d->Status().message(), StartsWith("2nd of 2 in the queue; "));
  EXPECT_EQ(Ordinal(11), "11th");
  EXPECT_EQ(Ordinal(12), "12th");
  EXPECT_EQ(Ordinal(13), "13th");
  EXPECT_EQ(Ordinal(21), "21st");
  EXPECT_EQ(Ordinal(102), "102nd");
  EXPECT_EQ(Ordinal(113), "113th");
}

// The pool split equally by job: a sweep that holds every worker keeps its part only; a job that
// waits comes before one that holds workers; one that wants less leaves the rest; whole leases.
TEST(DecideShareTest, SplitsThePoolEquallyBetweenTheJobsThatWantWorkers) {
  // A sweep holding all 8 workers, one lease each, and a queued one-worker job: 7 and 1.
  EXPECT_EQ(DecideShare(8, {{8, 1, 16}, {0, 1, 1}}), (std::vector<int>{7, 1}));
  // Two sweeps and a queued sweep: 3 each of 9 (the one that runs alone loses its excess).
  EXPECT_EQ(DecideShare(9, {{9, 1, 16}, {0, 1, 16}, {0, 1, 16}}), (std::vector<int>{3, 3, 3}));
  // 10 of 3 sweeps: the remainder goes to those holding fewer now.
  EXPECT_EQ(DecideShare(10, {{10, 1, 16}, {0, 1, 16}, {0, 1, 16}}), (std::vector<int>{3, 4, 3}));
  // One worker, a sweep running on it and a job waiting: the job gets it, the sweep pauses.
  EXPECT_EQ(DecideShare(1, {{1, 1, 16}, {0, 1, 1}}), (std::vector<int>{0, 1}));
  // ... and once the paused sweep and a second sweep holding it are tied, the paused one.
  EXPECT_EQ(DecideShare(1, {{0, 1, 16}, {1, 1, 16}}), (std::vector<int>{1, 0}));
  // Two sweeps on one worker, both between variants: the one served longer ago. They take turns.
  EXPECT_EQ(DecideShare(1, {{0, 1, 16, 7}, {0, 1, 16, 5}}), (std::vector<int>{0, 1}));
  EXPECT_EQ(DecideShare(1, {{0, 1, 16, 7}, {0, 1, 16, 9}}), (std::vector<int>{1, 0}));
  // Whole leases: a job needing 3 of a pool of 4 gets 3, the sweep of 2-worker leases none
  // (1 left is not a lease of it), one of 1-worker leases the last.
  EXPECT_EQ(DecideShare(4, {{4, 2, 16}, {0, 3, 3}}), (std::vector<int>{0, 3}));
  EXPECT_EQ(DecideShare(4, {{4, 1, 16}, {0, 3, 3}}), (std::vector<int>{1, 3}));
  // A job that needs more than the pool has gets nothing, and takes nothing from the others.
  EXPECT_EQ(DecideShare(4, {{4, 1, 16}, {0, 5, 5}}), (std::vector<int>{4, 0}));
  // Wanting less than an equal part leaves the rest to the others.
  EXPECT_EQ(DecideShare(12, {{2, 1, 2}, {10, 1, 16}}), (std::vector<int>{2, 10}));
  // Nobody, or no workers.
  EXPECT_TRUE(DecideShare(5, {}).empty());
  EXPECT_EQ(DecideShare(0, {{0, 1, 1}}), (std::vector<int>{0}));
}

// The queued jobs' claims: in queue order, one lease of the workers they need (units packed onto
// workers of `max_slots`), a sweep wanting as many leases as it may run at once; none for a job
// the attached workers cannot serve.
TEST_F(SchedulerTest, QueuedJobsClaimWhatTheyNeedToStart) {
  Scheduler scheduler(&workers_, &recorder_, 0s);
  workers_.attached = 4;
  std::shared_ptr<Job> two = Queued("job-two", 2);
  std::shared_ptr<Job> big = Queued("job-big", 5);
  scheduler.Add(two);
  scheduler.Add(big);
  std::vector<std::pair<const Job*, ShareClaim>> claims = scheduler.Claims(1);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].first, two.get());
  EXPECT_EQ(claims[0].second.holds, 0);
  EXPECT_EQ(claims[0].second.lease, 2);
  EXPECT_EQ(claims[0].second.wants, 2);
  claims = scheduler.Claims(2);  // both units on one worker of 2 slots
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].second.lease, 1);
}

}  // namespace
}  // namespace cosimo::orchestrator
