// JobRecorder: how a job's status reaches the JobStore, and how a job ends. Every change of a
// job's status is written; a write that fails is logged and fails the job (a running job is
// stopped through its cancel flag), its message beginning kNotStored with the store's error, so
// that what a client saw is never lost at a restart without the job saying so. Shared by the
// job manager, its scheduler and the job runners.
//
// Thread safety: every method may be called from any thread; a job's lock is held or not as
// each method's annotation says. Nothing owned.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job.h"
#include "orchestrator/src/job_store.h"

namespace cosimo::orchestrator {

inline constexpr char kNotStored[] = "its record could not be stored: ";
inline constexpr char kShutDownWhileRunning[] =
    "the orchestrator shut down while the job was running";

class JobRecorder {
 public:
  // `shutting_down`: whether the orchestrator is shutting down (a job it stopped then failed
  // rather than canceled); called without the job's lock.
  JobRecorder(JobStore* store, Clock* clock, std::function<bool()> shutting_down)
      : store_(store), clock_(clock), shutting_down_(std::move(shutting_down)) {}

  JobStore* store() const { return store_; }
  Clock* clock() const { return clock_; }
  bool ShuttingDown() const { return shutting_down_(); }

  // Writes the job's status to the store. A failed write is logged and fails the job: a job
  // that has ended ends failed with the store's error in its message; any other is canceled,
  // and ends failed with it (Finish). False if the write failed.
  bool Record(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(job.mutex);
  // After a running job's progress changed: its wall time, a store write at most once a second
  // (`stored_at`: the last one; a failed write cancels the job), and Touch.
  void Progressed(Job& job, std::chrono::steady_clock::time_point* stored_at)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(job.mutex);
  // Ends the job in `state` with `message` (FAILED naming the store's error instead after a
  // failed write), records it and drops its checkpoint, and, unless it succeeded, the rows its
  // runs stored as they went (JobStore::AppendRows).
  void Finish(Job& job, v1::JobState state, const std::string& message)
      ABSL_LOCKS_EXCLUDED(job.mutex);
  // A job that did not succeed: CANCELED when a client canceled it, FAILED otherwise (also when
  // the orchestrator's shutdown stopped it), its message followed by `reached` (how far it got)
  // unless the message names a time already.
  void FinishUnsuccessful(Job& job, const absl::Status& status, std::string message,
                          const std::string& reached) ABSL_LOCKS_EXCLUDED(job.mutex);
  // Once the job has ended `ended`: its checkpoint removed from the store (a failure is
  // logged), except a sweep's that did not succeed: its finished rows stay for its partial
  // table and for `cosimo resume` (JobManager::ResumeEnded) until it is deleted.
  void DropCheckpoint(const Job& job, v1::JobState ended);

 private:
  JobStore* const store_;
  Clock* const clock_;
  const std::function<bool()> shutting_down_;
};

}  // namespace cosimo::orchestrator
