// One job as the job manager keeps it in memory: what is fixed at submission (id, owner, kind,
// the worker labels of the units it runs, the artifacts it names) and its state (status,
// version, resumption), behind the job's own mutex. The scenario itself stays in the JobStore,
// read back when the job runs.
//
// Thread safety: the const members are read without a lock; `cancel` is atomic; every other
// member is guarded by `mutex` (ABSL_GUARDED_BY, checked by tests/thread_safety_check.py). Lock
// order: the JobManager's mutex before a job's; while a job's is held, only the job store's is
// taken (a status is written under it, JobRecorder::Record).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cosimo/v1/job_service.pb.h"

namespace cosimo::orchestrator {

// The kinds of job, each run by a JobRunner of its own (job_runner.h). A new kind adds its value
// here, what marks it in KindOf, its workers in WorkerLabelsOf and its runner in
// JobManager::RunnerFor.
enum class JobKind {
  kSimulation,
  kTraining,  // JobStatus.training set: trains one hybrid unit on one worker
  kSweep,     // JobStatus.sweep set: the variants of a parameter sweep (sweep_runner.h)
  kFit,       // JobStatus.fit set: a calibration, its batches as a sweep's variants (fit_runner.h)
};
JobKind KindOf(const v1::JobStatus& status);

// Leases one sweep job holds at most (its lanes, sweep_runner.h).
inline constexpr int kMaxSweepLanes = 16;

// What a job claims of the worker pool, for its share (scheduler.h, DecideShare). Workers count
// whole: a worker serves one job at a time, whatever its slots.
struct ShareClaim {
  int holds = 0;  // workers it holds now
  int lease = 1;  // workers one lease of it takes (a queued job: what it needs to start), >= 1
  int wants = 1;  // the most it could use: a multiple of `lease` (a queued simulation: `lease`)
  // When it last took a lease, in the order of all such takes (0: never, a queued job): of two
  // claims holding as many workers, the one served longer ago comes first.
  int64_t served = 0;
};

// The worker label of each unit the job runs on a worker, one worker slot each: every unit of a
// simulation, the trained unit of a training job, every unit of one variant of a sweep (the
// sweep's first lease; it takes more as capacity allows).
std::vector<std::string> WorkerLabelsOf(const v1::JobStatus& status, const v1::Scenario& scenario);

class Job {
 public:
  // From its first status (as submitted, or as the store holds it) and its scenario.
  Job(v1::JobStatus status, const v1::Scenario& scenario);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const std::string id;
  const std::string owner;  // the submitting client's name ("" without tokens)
  const int64_t submitted_unix_ms;
  const JobKind kind;
  const std::vector<std::string> labels;     // WorkerLabelsOf: one worker slot each
  const std::vector<std::string> artifacts;  // digests of the units' files (and training data)
  // Set by a cancel, a failed write of the status or a shutdown; a running job stops.
  std::atomic<bool> cancel{false};
  // A thread of the manager runs it, from its start until its runner returned and it left the
  // shares of the pool (JobManager::RunJob). A job resumed just after its end was seen does not
  // start again before: its last run may still be ending (Scheduler::Pass keeps it queued).
  std::atomic<bool> run_active{false};

  // A copy of the status; its state alone.
  v1::JobStatus Status() const ABSL_LOCKS_EXCLUDED(mutex);
  v1::JobState State() const ABSL_LOCKS_EXCLUDED(mutex);
  // The status changed: bumps the version and wakes the watchers.
  void Touch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex);
  // Waits until the version is no longer `*version` (0: returns at once), `deadline` passed or
  // the job was closed; then the status, and `*version` updated.
  v1::JobStatus WaitForChange(uint64_t* version, absl::Time deadline) ABSL_LOCKS_EXCLUDED(mutex);
  // The manager shuts down: watchers wait no more.
  void Close() ABSL_LOCKS_EXCLUDED(mutex);

  mutable absl::Mutex mutex;
  v1::JobStatus status ABSL_GUARDED_BY(mutex);
  std::string store_error ABSL_GUARDED_BY(mutex);  // the first failed write of the status
  // When it started running (a resumption keeps the first start).
  std::chrono::steady_clock::time_point started ABSL_GUARDED_BY(mutex);
  int64_t started_unix_ms ABSL_GUARDED_BY(mutex) = 0;
  // Since when the pool has had too few matching workers for it (queued jobs only).
  std::optional<std::chrono::steady_clock::time_point> unschedulable_since ABSL_GUARDED_BY(mutex);
  // Queued again to resume from its checkpoint (issue 18): its state stays RUNNING. How often
  // it did: a unit that kills its worker every time does not loop for ever.
  bool resuming ABSL_GUARDED_BY(mutex) = false;
  int resumptions ABSL_GUARDED_BY(mutex) = 0;
  // A sweep's variants that were running when their worker was lost, and how often: they run
  // again alone, and fail at the second loss (sweep_runner.h). Kept across its resumptions.
  std::map<uint64_t, int> variant_losses ABSL_GUARDED_BY(mutex);
  // A running simulation job's table as its run's first chunk of rows names it (columns and
  // column_types; empty before): the header of its rows so far (JobManager::ReadResults).
  v1::ResultsHeader live_header ABSL_GUARDED_BY(mutex);
  // A running sweep's claim on the pool (its lanes' workers, one lease's, the most it could use),
  // kept up to date by its run for the shares of the pool.
  ShareClaim pool_claim ABSL_GUARDED_BY(mutex);

 private:
  uint64_t version_ ABSL_GUARDED_BY(mutex) = 1;
  bool closed_ ABSL_GUARDED_BY(mutex) = false;
  absl::CondVar changed_;  // version_ moved on, or closed_
};

}  // namespace cosimo::orchestrator
