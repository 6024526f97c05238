#include "orchestrator/src/housekeeper.h"

#include <algorithm>

#include "absl/time/time.h"
#include "orchestrator/src/job_manager.h"

namespace cosimo::orchestrator {

std::chrono::seconds Housekeeper::period() const {
  std::chrono::seconds shortest = std::chrono::hours(1) * 4;
  for (std::chrono::seconds r : {options_.job_retention, options_.artifact_retention}) {
    if (r.count() > 0) shortest = std::min(shortest, r);
  }
  return std::clamp<std::chrono::seconds>(shortest / 4, std::chrono::seconds(1),
                                          std::chrono::hours(1));
}

void Housekeeper::Start() {
  if (options_.job_retention.count() <= 0 && options_.artifact_retention.count() <= 0) return;
  thread_ = std::thread([this] { Loop(); });
}

void Housekeeper::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
  }
  stop_cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void Housekeeper::Pass() {
  if (options_.job_retention.count() > 0) (void)jobs_->ExpireJobs(options_.job_retention);
  if (options_.artifact_retention.count() > 0) {
    (void)jobs_->PruneArtifacts(options_.artifact_retention);
  }
}

void Housekeeper::Loop() {
  const absl::Duration wait = absl::FromChrono(period());
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (stop_) return;
    }
    Pass();
    absl::MutexLock lock(&mutex_);
    const absl::Time deadline = absl::Now() + wait;
    while (!stop_ && !stop_cv_.WaitWithDeadline(&mutex_, deadline)) {
    }
  }
}

}  // namespace cosimo::orchestrator
