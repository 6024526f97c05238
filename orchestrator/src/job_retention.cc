// JobManager's retention: deleting a job, expiring ended jobs and pruning artifacts no job names
// (job_manager.h; the housekeeper calls the last two).
#include "orchestrator/src/job_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/job_access.h"

namespace cosimo::orchestrator {

absl::Status JobManager::Delete(const std::string& job_id, const Caller& caller) {
  absl::MutexLock use(&artifact_use_);
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  const v1::JobStatus status = job->Status();
  if (!MayChange(status, caller)) return NotYours(status, caller, "delete");
  if (!IsFinished(status.state())) {
    return absl::FailedPreconditionError("job " + job_id + " is " +
                                         v1::JobState_Name(status.state()) + ": cancel it first");
  }
  if (absl::Status s = store_->Delete(job_id); !s.ok()) return s;
  jobs_.erase(job_id);
  RemoveUnnamedArtifacts(job_id, job->artifacts);
  return absl::OkStatus();
}

void JobManager::RemoveUnnamedArtifacts(const std::string& job_id,
                                        const std::vector<std::string>& digests) {
  const std::set<std::string> named = NamedArtifacts();
  for (const std::string& digest : digests) {
    if (named.count(digest) != 0 || !artifacts_->Has(digest)) continue;
    if (absl::Status s = artifacts_->Remove(digest); !s.ok()) {
      spdlog::warn("job {} deleted, but {}", job_id, s.message());
    } else {
      spdlog::info("artifact {} removed: no job names it any more", digest);
    }
  }
}

std::vector<std::string> JobManager::ExpireJobs(std::chrono::seconds older_than) {
  const int64_t cutoff_ms =
      clock_->UnixMs() - std::chrono::duration_cast<std::chrono::milliseconds>(older_than).count();
  std::vector<std::string> expired;
  {
    absl::ReaderMutexLock lock(&mutex_);
    for (const auto& [id, job] : jobs_) {
      const v1::JobStatus st = job->Status();
      // A job recorded before finish times were kept counts from its submission.
      const int64_t ended_ms =
          st.finished_unix_ms() != 0 ? st.finished_unix_ms() : st.submitted_unix_ms();
      if (IsFinished(st.state()) && ended_ms < cutoff_ms) expired.push_back(id);
    }
  }
  std::vector<std::string> deleted;
  for (const std::string& id : expired) {
    // Deleted by a client meanwhile: nothing left to do.
    if (absl::Status s = Delete(id); !s.ok()) {
      if (s.code() != absl::StatusCode::kNotFound) {
        spdlog::warn("expiring job {}: {}", id, s.message());
      }
      continue;
    }
    spdlog::info("job {} expired: it ended more than {:g} days ago", id,
                 static_cast<double>(older_than.count()) / 86400.0);
    deleted.push_back(id);
  }
  return deleted;
}

std::vector<std::string> JobManager::PruneArtifacts(std::chrono::seconds older_than) {
  absl::MutexLock use(&artifact_use_);
  std::set<std::string> named;
  {
    absl::ReaderMutexLock lock(&mutex_);
    named = NamedArtifacts();
  }
  std::vector<std::string> removed = artifacts_->Prune(named, older_than);
  for (const std::string& what : removed) {
    spdlog::info("artifact store: removed {}: no job names it and it was not used for {:g} h", what,
                 static_cast<double>(older_than.count()) / 3600.0);
  }
  return removed;
}

std::set<std::string> JobManager::NamedArtifacts() const {
  std::set<std::string> named;
  for (const auto& [id, job] : jobs_) {
    named.insert(job->artifacts.begin(), job->artifacts.end());
  }
  return named;
}

}  // namespace cosimo::orchestrator
