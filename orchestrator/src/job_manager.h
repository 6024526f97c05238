// Jobs: submission, the queue until enough idle workers match (Scheduler, scheduler.h), running
// each job on its own thread by the runner of its kind (JobRunner, job_runner.h: simulation or
// training), cancellation, watching, listing, deletion and retention (the Housekeeper calls
// ExpireJobs and PruneArtifacts), and durable records in the JobStore. A job that fails says
// why; other jobs go on. Defined in three files: the lifecycle (submit, schedule, run, resume,
// recover, cancel) in job_manager.cc, the queries (status, list, results, waiting for a change,
// workers) in job_queries.cc, retention and deletion in job_retention.cc; who may change a job
// is job_access.h.
//
// Every change of a job's status is written to the store; a write that fails is logged and fails
// the job (a running job is stopped), so that what a client sees is never lost at a restart
// without the job saying so (JobRecorder, job_recorder.h).
//
// Thread safety: every public method may be called from any thread (gRPC handlers). The locks
// are absl::Mutex with Clang's thread-safety annotations (checked by tests/thread_safety_check.py,
// docs/architecture.md#threads): the artifact lock, then the manager's (the registry of jobs and
// the queue), then a job's own (its state, job.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/orchestrator/server.h"
#include "cosimo/v1/job_service.pb.h"
#include "orchestrator/src/artifact_store.h"
#include "orchestrator/src/caller.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job.h"
#include "orchestrator/src/job_admission.h"
#include "orchestrator/src/job_recorder.h"
#include "orchestrator/src/job_runner.h"
#include "orchestrator/src/job_store.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/running_units.h"
#include "orchestrator/src/scheduler.h"
#include "orchestrator/src/thread_group.h"
#include "orchestrator/src/worker_lease.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

class JobManager {
 public:
  // `unschedulable_timeout`: a queued job that needs more workers than the pool has (counting
  // busy ones, with matching labels) fails once that has lasted this long; zero: it waits.
  // `command_timeout`: how long a job waits for a unit's reply to one command before it fails
  // (0: no limit). A cancel ends a job's wait at once either way. `metrics` (may be null):
  // where the running jobs record their accepted steps and their workers' round trips. `clock`:
  // what the job's times, the timeouts and ExpireJobs read (tests pass a ManualClock). Nothing
  // is owned. `limits`: what a job and a client may ask (JobLimits).
  JobManager(WorkerPool* pool, JobStore* store, ArtifactStore* artifacts,
             std::chrono::seconds unschedulable_timeout = std::chrono::seconds(0),
             std::chrono::milliseconds command_timeout = std::chrono::milliseconds(0),
             Metrics* metrics = nullptr, Clock* clock = Clock::Real(), JobLimits limits = {});
  ~JobManager();

  // How often a running job takes a checkpoint by wall time (besides the scenario's
  // algorithm.checkpoint_every); zero: only by steps. Set before jobs run.
  void set_checkpoint_interval(std::chrono::seconds interval) { checkpoint_interval_ = interval; }
  // How often one job resumes after losing a worker before it fails (0: never); 3 by default.
  void set_max_resumptions(int n) { max_resumptions_ = n; }
  void set_master_in_worker(bool on) { master_in_worker_ = on; }
  // A checkpoint of a job run whole on a worker bigger than this travels in parts (0: 4 MiB).
  void set_checkpoint_part_bytes(uint64_t bytes) { checkpoint_part_bytes_ = bytes; }

  // Loads the stored jobs: finished ones as they were, queued ones queued again, running ones
  // with a checkpoint queued to resume from it, and other running ones failed (their workers and
  // state are gone).
  [[nodiscard]] absl::Status Recover();

  // Validates and queues a job owned by `caller`; returns the job id. Errors name the scenario
  // field at fault, or the limit (JobLimits) and the flag that raises it. With `training`, the
  // job trains that hybrid unit on one worker (orchestrator/src/training_job.h); with `sweep`, it
  // runs the sweep's variants of `scenario` (sweep_runner.h; not with `training`).
  [[nodiscard]] absl::StatusOr<std::string> Submit(const v1::Scenario& scenario,
                                                   const Caller& caller = {},
                                                   const v1::TrainingRequest* training = nullptr,
                                                   const v1::Sweep* sweep = nullptr,
                                                   const v1::CalibrationJob* fit = nullptr);
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Get(const std::string& job_id) const;
  // A calibration job's measured samples (CalibrationJob.samples alone), which its statuses
  // leave out (stored once with the job, JobStore::PutCalibrationSamples). NotFound for an
  // unknown job; FailedPrecondition for a job that is not a calibration.
  [[nodiscard]] absl::StatusOr<v1::CalibrationJob> CalibrationSamples(
      const std::string& job_id) const;
  // Only the job's owner or an admin may cancel or delete it (PERMISSION_DENIED naming the
  // owner otherwise).
  [[nodiscard]] absl::StatusOr<v1::JobStatus> Cancel(const std::string& job_id,
                                                     const Caller& caller = {});
  // Queues a sweep or a calibration that ended FAILED or CANCELED again: a sweep keeps its
  // finished variants' rows (its checkpoint) and runs the others; a calibration's optimiser runs
  // again from its start, its finished batches (its checkpoint) answered from the store bit for
  // bit (fit_runner.h), the rest run. FailedPrecondition for another job or state; the owner or
  // an admin only.
  [[nodiscard]] absl::StatusOr<v1::JobStatus> ResumeEnded(const std::string& job_id,
                                                          const Caller& caller = {});
  // The workers attached to the pool.
  std::vector<v1::WorkerStatus> Workers() const;
  // The unit each busy worker runs: worker id -> unit name.
  std::map<std::string, std::string> RunningUnits() const;
  // How many jobs are in each state, and the queue's length (for metrics).
  struct Counts {
    std::map<v1::JobState, int> by_state;
    size_t queued = 0;
    int units_waiting = 0;                          // Scheduler::UnitsWaiting
    std::set<std::string> job_ids;                  // every job the manager knows
    std::map<std::string, v1::SweepStatus> sweeps;  // every sweep job's progress, by job id
    // Every calibration job's progress, by job id (its calibration and result left out).
    std::map<std::string, v1::FitStatus> fits;
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
  // A succeeded simulation job's results table, with `partial` the rows so far of a running one
  // (as ReadResults gives them, read whole), a sweep's table (partial while it runs and after it
  // failed or was canceled: UnfinishedSweepTable); FailedPrecondition for a training job and, but
  // for those, a job that has not succeeded.
  [[nodiscard]] absl::StatusOr<StoredResults> Results(const std::string& job_id,
                                                      bool partial = false) const;
  // Which rows of a job's results to read, and of what (GetResultsRequest).
  struct ResultsRange {
    uint64_t first_row = 0;             // the first row read
    std::optional<uint64_t> last_rows;  // only the last this many rows from first_row on
    std::optional<uint64_t> variant;    // a sweep variant's full results (keep_results ALL)
    bool partial = false;               // a running simulation job's rows so far
  };
  // The job's results as GetResults streams them: the header once (its first_row where the rows
  // read begin), then the rows of `range`, a chunk at a time, to `rows` until it returns false.
  // With `partial`, a running simulation job's are its rows so far (issue 42; metadata.partial, a
  // prefix of its results), read from the store a chunk at a time, under the columns its run's
  // first chunk of rows named (none yet: no columns, no rows). A succeeded job's results and a
  // sweep variant's (once it succeeded; FailedPrecondition otherwise, InvalidArgument past the
  // last variant) are read from the store a chunk at a time, never whole in memory. Otherwise
  // what Results gives, sent in pieces. Errors before the header.
  [[nodiscard]] absl::Status ReadResults(
      const std::string& job_id, const ResultsRange& range,
      const std::function<bool(const v1::ResultsHeader&)>& header, const RowChunkSink& rows) const;
  // A succeeded training job's weights file; FailedPrecondition for a simulation job.
  [[nodiscard]] absl::StatusOr<v1::TrainingResult> TrainingResult(const std::string& job_id) const;
  // The job's log so far (its units' FMI log messages and output, GetJobLogs), of `unit` alone
  // unless it is empty (a unit it does not have: none); NotFound for no such job.
  [[nodiscard]] absl::StatusOr<std::vector<v1::LogEntry>> Logs(const std::string& job_id,
                                                               const std::string& unit) const;
  // Forgets a finished job (record and results) and removes the artifacts that no other job
  // names; a queued or running one is refused. An artifact uploaded for a job not submitted yet
  // is only named once that job is: submitting it after such a removal fails naming the
  // artifact, and uploading again mends it (the CLI uploads right before it submits).
  [[nodiscard]] absl::Status Delete(const std::string& job_id, const Caller& caller = {});
  // Removes the artifacts that no job names and that nobody used (uploaded, asked about, named in
  // a submit) for `older_than`, and uploads abandoned that long ago; returns what it removed. A
  // submit that names an artifact is not interleaved with this: the artifact is either kept (the
  // job names it) or was gone when the submit checked it (which then fails naming it).
  std::vector<std::string> PruneArtifacts(std::chrono::seconds older_than);
  // Deletes (as Delete does) the jobs that ended longer than `older_than` ago by the clock;
  // queued and running jobs stay. Returns their ids.
  std::vector<std::string> ExpireJobs(std::chrono::seconds older_than);

  // Waits until the job's status changed after `*version` (or `timeout` passed), then returns
  // it and updates `*version`. `*version` 0 returns at once.
  [[nodiscard]] absl::StatusOr<v1::JobStatus> WaitForChange(const std::string& job_id,
                                                            uint64_t* version,
                                                            std::chrono::milliseconds timeout);

  // Stops scheduling, cancels running jobs and joins their threads.
  void Shutdown();

 private:
  // Counts a submit of `owner` against the client's queue limit until it is queued (submitting_);
  // ResourceExhausted at the limit.
  [[nodiscard]] absl::Status ReserveQueueSlot(const std::string& owner) ABSL_LOCKS_EXCLUDED(mutex_);
  void Schedule() ABSL_LOCKS_EXCLUDED(mutex_);
  // With an unschedulable timeout: schedules every second until shutdown, so that the timeout is
  // noticed without a change of the pool.
  void Tick() ABSL_LOCKS_EXCLUDED(mutex_);
  // The workers' log lines, stored with their jobs (WorkerPool::SetLogSink).
  void StoreLogs(const v1::UnitLogs& logs) ABSL_LOCKS_EXCLUDED(mutex_);
  // Joins the job threads that are done.
  // The job's thread: ends a job canceled before it got here, else hands it to its runner.
  void RunJob(const std::shared_ptr<Job>& job, WorkerLease lease) ABSL_LOCKS_EXCLUDED(mutex_);
  // The runner of the job's kind (a new kind's runner is added here).
  std::unique_ptr<JobRunner> RunnerFor(const Job& job);
  // RunnerEnv::share: the workers `job` (a running sweep) may hold, DecideShare over the running
  // sweeps (in the order they started) and the queued jobs the pool could serve, of the idle
  // workers and those the sweeps hold.
  int ShareOf(const Job& job) ABSL_LOCKS_EXCLUDED(mutex_);
  // RunnerEnv::resume: queues a running job that lost a worker again, first in line.
  std::string Resume(const std::shared_ptr<Job>& job, const std::string& message)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // Queues a job read back from the store (Recover), or fails it: a running one without a
  // checkpoint. Counts it in `requeued` or `failed`.
  void Recovered(const std::shared_ptr<Job>& job, int* requeued, int* failed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool ShuttingDown() const ABSL_LOCKS_EXCLUDED(mutex_);
  // ReadResults of a running simulation job (job_results.cc); the job is RUNNING in `status`.
  [[nodiscard]] absl::Status ReadRowsSoFar(
      Job& job, const v1::JobStatus& status, const ResultsRange& range,
      const std::function<bool(const v1::ResultsHeader&)>& header, const RowChunkSink& rows) const;
  std::shared_ptr<Job> Find(const std::string& job_id) const ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  // The artifact digests that the units of the jobs in jobs_ name.
  std::set<std::string> NamedArtifacts() const ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  // After a job's deletion: removes those of `digests` that no job names any more.
  void RemoveUnnamedArtifacts(const std::string& job_id, const std::vector<std::string>& digests)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(artifact_use_, mutex_);

  WorkerPool* const pool_;
  JobStore* const store_;
  ArtifactStore* const artifacts_;
  Clock* const clock_;
  JobRecorder recorder_;
  PoolWorkerSource worker_source_;
  RunningUnitsMap running_units_;

  // Held shared by a submit from its artifact checks until its job is in jobs_, and exclusively
  // while artifacts are removed (Delete, PruneArtifacts).
  absl::Mutex artifact_use_ ABSL_ACQUIRED_BEFORE(mutex_);
  // Guards the registry of jobs and the queue; each job's state has its own lock (Job::mutex),
  // taken after this one.
  mutable absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<Job>> jobs_ ABSL_GUARDED_BY(mutex_);
  Scheduler scheduler_ ABSL_GUARDED_BY(mutex_);  // the queue
  // The running sweeps, in the order they started: they share the pool (ShareOf).
  std::vector<std::shared_ptr<Job>> sweeps_ ABSL_GUARDED_BY(mutex_);
  // Per owner, the submits between their limit check and their job in the queue (Submit).
  std::map<std::string, int> submitting_ ABSL_GUARDED_BY(mutex_);
  bool shutdown_ ABSL_GUARDED_BY(mutex_) = false;
  // Job threads; finished ones are joined by the next Schedule.
  ThreadGroup threads_ ABSL_GUARDED_BY(mutex_);
  const std::chrono::milliseconds command_timeout_;
  std::chrono::seconds checkpoint_interval_{60};
  int max_resumptions_ = 3;
  bool master_in_worker_ = true;
  uint64_t checkpoint_part_bytes_ = 0;
  Metrics* const metrics_;
  const JobLimits limits_;
  const bool ticks_;  // an unschedulable timeout is set: Tick runs
  absl::CondVar ticker_cv_;
  std::thread ticker_;
};

}  // namespace cosimo::orchestrator
