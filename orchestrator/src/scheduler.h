// Scheduler: the queue of jobs waiting for workers, and the pass that starts them. A pass takes
// the queue in order. A canceled job leaves it. A job gets a slot of an idle worker per unit,
// matching its units' labels, all or nothing (WorkerSource::TryAcquire); it is then RUNNING,
// recorded, and handed back with its WorkerLease for the job manager to run. A job that gets no
// workers stays, its message saying why (`waiting for workers: needs 2, 1 idle and matching`);
// with an unschedulable timeout, one that needs more workers than the pool has at all (busy ones
// counted) fails once that has lasted the timeout by the clock, and says so meanwhile.
//
// A waiting job's message starts with its place in the queue (`2nd of 3 in the queue; ...`).
//
// Sharing the pool (docs/deployment.md, "Sharing the pool"): DecideShare splits the workers
// between the jobs that want them, equally by job. Queued jobs take idle workers in queue order
// as ever; a running sweep takes more workers only up to its share and gives back, between
// variants, the workers above it (sweep_runner.h).
//
// Thread safety: none of its own; the JobManager holds its mutex around every call. A pass takes
// each job's lock itself (the manager's before the job's). Nothing owned.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job.h"
#include "orchestrator/src/job_recorder.h"
#include "orchestrator/src/worker_lease.h"

namespace cosimo::orchestrator {

class WorkerPool;

// The workers as the scheduler sees them (the pool; tests fake it). Thread safe.
class WorkerSource {
 public:
  virtual ~WorkerSource() = default;
  // A slot of an idle worker per entry of `labels` (empty label: any worker), all or nothing,
  // marked busy for `job_id` until the lease releases them.
  virtual std::optional<WorkerLease> TryAcquire(const std::vector<std::string>& labels,
                                                const std::string& job_id) = 0;
  // How many of `labels` idle workers could serve now; how many attached ones could, busy or not.
  virtual int CountAvailable(const std::vector<std::string>& labels) const = 0;
  virtual int CountMatching(const std::vector<std::string>& labels) const = 0;
  // The latest crash report of job `job_id`'s variant `variant` (WorkerPool::CrashOf).
  virtual std::optional<v1::CrashReport> CrashOf(const std::string& job_id, int64_t variant) const {
    (void)job_id;
    (void)variant;
    return std::nullopt;
  }
};

// A WorkerSource over a WorkerPool (not owned).
class PoolWorkerSource final : public WorkerSource {
 public:
  explicit PoolWorkerSource(WorkerPool* pool) : pool_(pool) {}
  std::optional<WorkerLease> TryAcquire(const std::vector<std::string>& labels,
                                        const std::string& job_id) override;
  int CountAvailable(const std::vector<std::string>& labels) const override;
  int CountMatching(const std::vector<std::string>& labels) const override;
  std::optional<v1::CrashReport> CrashOf(const std::string& job_id, int64_t variant) const override;

 private:
  WorkerPool* const pool_;
};

// How many workers each of `claims` may hold, of `workers` (the idle ones and those the claims
// hold; workers of jobs that give none back are not counted): an equal split by job, in whole
// leases. Leases go one at a time to the claim with the smallest share so far that still wants
// one and that one fits; ties go to the claim holding fewer workers now (a job that waits comes
// before one that runs), then to the one served longer ago (ShareClaim::served: two sweeps on
// one worker take turns), then to the earlier claim. A claim that wants less than an equal part
// leaves the rest to the others. Pure; the shares sum to at most `workers`.
std::vector<int> DecideShare(int workers, const std::vector<ShareClaim>& claims);

// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st", ...
std::string Ordinal(size_t n);

class Scheduler {
 public:
  // `unschedulable_timeout` zero: a job the pool is too small for waits for ever.
  Scheduler(WorkerSource* workers, JobRecorder* recorder,
            std::chrono::seconds unschedulable_timeout)
      : workers_(workers), recorder_(recorder), unschedulable_timeout_(unschedulable_timeout) {}

  void Add(std::shared_ptr<Job> job) { queue_.push_back(std::move(job)); }
  // Before every job that has not started: a job that resumes after a lost worker.
  void AddFirst(std::shared_ptr<Job> job) { queue_.push_front(std::move(job)); }
  // Takes the job out of the queue; false if it was not in it.
  bool Remove(const Job& job);
  size_t size() const { return queue_.size(); }
  // The queued jobs of `owner`.
  int QueuedBy(const std::string& owner) const;
  // The worker slots the queued jobs wait for: one per unit of each job not canceled (the
  // demand an autoscaler follows: cosimo_units_waiting_for_slots).
  int UnitsWaiting() const;
  // The queued jobs that the attached workers could serve (enough of them match), in queue
  // order, as DecideShare takes them: a worker hosts up to `max_slots` units (the most slots of
  // an attached worker).
  std::vector<std::pair<const Job*, ShareClaim>> Claims(int max_slots) const;

  struct Start {
    std::shared_ptr<Job> job;
    WorkerLease lease;
  };
  // One pass over the queue (above). Returns the jobs that got their workers, RUNNING and
  // recorded (a failed write has canceled the job: its runner ends it at once), in queue order.
  std::vector<Start> Pass();

 private:
  // A canceled job leaves the queue; one that waited to resume and whose status could not be
  // written ends as JobRecorder::Finish would end it.
  void Drop(Job& job);
  // The job, `place` of `queued` in the queue, got no workers: its message says where it is
  // and why it waits. False when it waited longer than the unschedulable timeout: it has failed
  // and leaves the queue.
  bool KeepWaiting(Job& job, size_t place, size_t queued);
  void Started(Job& job);

  WorkerSource* const workers_;
  JobRecorder* const recorder_;
  const std::chrono::seconds unschedulable_timeout_;
  std::deque<std::shared_ptr<Job>> queue_;
};

}  // namespace cosimo::orchestrator
