// Jobs: submission, queueing until enough idle workers match, running each job on its own
// thread (load units on workers, RunMaster, store results), cancellation, watching, listing,
// and durable records in the JobStore. A job that fails says why; other jobs go on.
//
// Thread safety: every public method may be called from any thread (gRPC handlers).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/job_service.pb.h"
#include "orchestrator/src/artifact_store.h"
#include "orchestrator/src/job_store.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

class JobManager {
 public:
  // `unschedulable_timeout`: a queued job that needs more workers than the pool has (counting
  // busy ones, with matching labels) fails once that has lasted this long; zero: it waits.
  // `command_timeout`: how long a job waits for a unit's reply to one command before it fails
  // (0: no limit). A cancel ends a job's wait at once either way. `metrics` (may be null):
  // where the running jobs record their accepted steps and their workers' round trips.
  JobManager(WorkerPool* pool, JobStore* store, ArtifactStore* artifacts,
             std::chrono::seconds unschedulable_timeout = std::chrono::seconds(0),
             std::chrono::milliseconds command_timeout = std::chrono::milliseconds(0),
             Metrics* metrics = nullptr);
  ~JobManager();

  // Loads the stored jobs: finished ones as they were, queued ones queued again, and running
  // ones failed (their workers and state are gone).
  [[nodiscard]] absl::Status Recover();

  // Validates and queues; returns the job id. Errors name the scenario field at fault.
  [[nodiscard]] absl::StatusOr<std::string> Submit(const v1::Scenario& scenario);
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Get(const std::string& job_id) const;
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Cancel(const std::string& job_id);
  // The workers attached to the pool.
  std::vector<v1::WorkerStatus> Workers() const;
  // The unit each busy worker runs: worker id -> unit name.
  std::map<std::string, std::string> RunningUnits() const;
  // How many jobs are in each state, and the queue's length (for metrics).
  struct Counts {
    std::map<v1::JobState, int> by_state;
    size_t queued = 0;
    std::set<std::string> job_ids;  // every job the manager knows
  };
  Counts Count() const;
  // One page of the jobs, newest first: at most `page_size` (0: 100, at most 1000) after the
  // job `page_token` names (empty: from the newest). `next_page_token` is empty on the last page.
  struct JobPage {
    std::vector<v1::JobStatus> jobs;
    std::string next_page_token;
  };
  [[nodiscard]] absl::StatusOr<JobPage> List(uint32_t page_size,
                                             const std::string& page_token) const;
  [[nodiscard]] absl::StatusOr<StoredResults> Results(const std::string& job_id) const;
  // Forgets a finished job (record and results) and removes the artifacts that no other job
  // names; a queued or running one is refused. An artifact uploaded for a job not submitted yet
  // is only named once that job is: submitting it after such a removal fails naming the
  // artifact, and uploading again mends it (the CLI uploads right before it submits).
  [[nodiscard]] absl::Status Delete(const std::string& job_id);
  // Removes the artifacts that no job names and that nobody used (uploaded, asked about, named in
  // a submit) for `older_than`, and uploads abandoned that long ago; returns what it removed. A
  // submit that names an artifact is not interleaved with this: the artifact is either kept (the
  // job names it) or was gone when the submit checked it (which then fails naming it).
  std::vector<std::string> PruneArtifacts(std::chrono::seconds older_than);
  // Deletes (as Delete does) the jobs that ended longer than `older_than` ago; queued and
  // running jobs stay. Returns their ids.
  std::vector<std::string> ExpireJobs(std::chrono::seconds older_than);

  // Waits until the job's status changed after `*version` (or `timeout` passed), then returns
  // it and updates `*version`. `*version` 0 returns at once.
  [[nodiscard]] absl::StatusOr<v1::JobStatus> WaitForChange(const std::string& job_id,
                                                            uint64_t* version,
                                                            std::chrono::milliseconds timeout);

  // Stops scheduling, cancels running jobs and joins their threads.
  void Shutdown();

 private:
  struct Job;
  // What the manager keeps of a job's scenario: labels and artifact digests.
  static void Summarize(const v1::Scenario& scenario, Job* job);
  void Schedule();
  void RunJob(const std::shared_ptr<Job>& job,
              std::vector<std::shared_ptr<WorkerConnection>> workers);
  void Finish(const std::shared_ptr<Job>& job, v1::JobState state, const std::string& message);
  void Touch(Job& job);  // under mutex_: bump version, notify watchers
  std::shared_ptr<Job> Find(const std::string& job_id) const;
  // mutex_ held: the artifact digests that the units of the jobs in jobs_ name.
  std::set<std::string> NamedArtifacts() const;

  WorkerPool* pool_;
  JobStore* store_;
  ArtifactStore* artifacts_;

  // Held shared by a submit from its artifact checks until its job is in jobs_, and exclusively
  // while artifacts are removed (Delete, PruneArtifacts). Taken before mutex_.
  std::shared_mutex artifact_use_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::vector<std::shared_ptr<Job>> queue_;           // FIFO of queued jobs
  std::map<std::string, std::string> running_units_;  // worker id -> unit names, ","-joined
  bool shutdown_ = false;
  // Job threads; finished ones are joined by the next Schedule (done flag set last thing).
  struct JobThread {
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::vector<JobThread> threads_;
  // With an unschedulable timeout: schedules every second, so that the timeout is noticed
  // without a change of the pool.
  const std::chrono::seconds unschedulable_timeout_;
  const std::chrono::milliseconds command_timeout_;
  Metrics* const metrics_;
  std::condition_variable ticker_cv_;
  std::thread ticker_;
};

}  // namespace cosimo::orchestrator
