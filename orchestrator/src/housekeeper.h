// Housekeeper: the orchestrator's retention. While either period is set, a thread of its own
// passes now and then every quarter of the shorter period (between a second and an hour) until
// Stop: it deletes the jobs that ended longer ago than `job_retention` (JobManager::ExpireJobs,
// their artifacts with them when no other job names them) and removes the artifacts that no job
// names and nobody used for `artifact_retention` (JobManager::PruneArtifacts). The waits are in
// real time; what a pass removes is measured by the job manager's clock (tests move a
// ManualClock and call Pass, or the manager's passes, themselves).
//
// Call order: Start once, then Stop (the destructor stops too). Thread safety: Pass may be
// called from any thread; Start and Stop from the owner's.
#pragma once

#include <chrono>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cosimo::orchestrator {

class JobManager;

struct RetentionOptions {
  std::chrono::seconds job_retention{0};       // 0: jobs are kept until deleted
  std::chrono::seconds artifact_retention{0};  // 0: unnamed artifacts are kept
};

class Housekeeper {
 public:
  // `jobs` is not owned and outlives the housekeeper.
  Housekeeper(JobManager* jobs, RetentionOptions options) : jobs_(jobs), options_(options) {}
  ~Housekeeper() { Stop(); }
  Housekeeper(const Housekeeper&) = delete;
  Housekeeper& operator=(const Housekeeper&) = delete;

  // The time between passes: a quarter of the shorter period set, between 1 s and 1 h.
  std::chrono::seconds period() const;
  // Starts the thread, when a period is set.
  void Start() ABSL_LOCKS_EXCLUDED(mutex_);
  // Ends the thread (a pass under way finishes first). Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mutex_);
  // One pass now: the retention of each period set.
  void Pass();
  // Whether the thread runs (between a Start with a period set and Stop). The owner's thread.
  bool running() const { return thread_.joinable(); }

 private:
  void Loop() ABSL_LOCKS_EXCLUDED(mutex_);

  JobManager* const jobs_;
  const RetentionOptions options_;
  absl::Mutex mutex_;
  absl::CondVar stop_cv_;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // started and joined by the owner's thread
};

}  // namespace cosimo::orchestrator
