#include "orchestrator/src/scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

std::optional<WorkerLease> PoolWorkerSource::TryAcquire(const std::vector<std::string>& labels,
                                                        const std::string& job_id) {
  auto workers = pool_->TryAcquire(labels, job_id);
  if (!workers) return std::nullopt;
  return WorkerLease::FromPool(pool_, *std::move(workers));
}

int PoolWorkerSource::CountAvailable(const std::vector<std::string>& labels) const {
  return pool_->CountAvailable(labels);
}

std::optional<v1::CrashReport> PoolWorkerSource::CrashOf(const std::string& job_id,
                                                         int64_t variant) const {
  return pool_->CrashOf(job_id, variant);
}

int PoolWorkerSource::CountMatching(const std::vector<std::string>& labels) const {
  return pool_->CountMatching(labels);
}

std::vector<int> DecideShare(int workers, const std::vector<ShareClaim>& claims) {
  std::vector<int> share(claims.size(), 0);
  int left = workers;
  while (true) {
    size_t best = claims.size();
    for (size_t i = 0; i < claims.size(); ++i) {
      const ShareClaim& c = claims[i];
      const int lease = std::max(1, c.lease);
      if (share[i] + lease > c.wants || lease > left) continue;
      if (best == claims.size() || share[i] < share[best] ||
          (share[i] == share[best] &&
           (c.holds < claims[best].holds ||
            (c.holds == claims[best].holds && c.served < claims[best].served)))) {
        best = i;
      }
    }
    if (best == claims.size()) return share;
    const int lease = std::max(1, claims[best].lease);
    share[best] += lease;
    left -= lease;
  }
}

std::string Ordinal(size_t n) {
  const size_t tens = n % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::vector<std::pair<const Job*, ShareClaim>> Scheduler::Claims(int max_slots) const {
  std::vector<std::pair<const Job*, ShareClaim>> claims;
  for (const std::shared_ptr<Job>& job : queue_) {
    if (job->cancel) continue;
    const int units = static_cast<int>(job->labels.size());
    if (workers_->CountMatching(job->labels) < units) continue;  // cannot start: no claim
    ShareClaim claim;
    claim.lease = std::max(1, (units + std::max(1, max_slots) - 1) / std::max(1, max_slots));
    // A sweep would use as many leases as it may run variants at once.
    claim.wants = claim.lease *
                  (job->kind == JobKind::kSweep || job->kind == JobKind::kFit ? kMaxSweepLanes : 1);
    claims.emplace_back(job.get(), claim);
  }
  return claims;
}

bool Scheduler::Remove(const Job& job) {
  const auto it =
      std::find_if(queue_.begin(), queue_.end(),
                   [&](const std::shared_ptr<Job>& queued) { return queued.get() == &job; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  return true;
}

int Scheduler::QueuedBy(const std::string& owner) const {
  return static_cast<int>(std::count_if(queue_.begin(), queue_.end(),
                                        [&](const auto& job) { return job->owner == owner; }));
}

int Scheduler::UnitsWaiting() const {
  int units = 0;
  for (const std::shared_ptr<Job>& job : queue_) {
    if (!job->cancel) units += static_cast<int>(job->labels.size());
  }
  return units;
}

std::vector<Scheduler::Start> Scheduler::Pass() {
  std::vector<Start> started;
  size_t place = 0;  // among the jobs that stay
  for (auto it = queue_.begin(); it != queue_.end();) {
    Job& job = **it;
    if (job.cancel) {
      Drop(job);
      it = queue_.erase(it);
      continue;
    }
    if (job.run_active) {  // its last run is still ending: it starts at the next pass
      ++place;
      ++it;
      continue;
    }
    std::optional<WorkerLease> lease = workers_->TryAcquire(job.labels, job.id);
    if (!lease) {
      // Its place among those that have not started (those that start in this pass after it
      // still counted).
      if (KeepWaiting(job, ++place, queue_.size())) {
        ++it;
      } else {
        it = queue_.erase(it);
        --place;
      }
      continue;
    }
    Started(job);
    started.push_back({*it, *std::move(lease)});
    it = queue_.erase(it);
  }
  return started;
}

void Scheduler::Drop(Job& job) {
  absl::MutexLock lock(&job.mutex);
  if (job.status.state() != v1::RUNNING || job.store_error.empty()) return;
  // Waiting to resume when a write of its status failed: it ends as Finish would end it.
  job.status.set_state(v1::FAILED);
  job.status.set_message(kNotStored + job.store_error);
  job.status.set_finished_unix_ms(recorder_->clock()->UnixMs());
  job.resuming = false;
  job.Touch();
  recorder_->DropCheckpoint(job, v1::FAILED);
}

bool Scheduler::KeepWaiting(Job& job, size_t place, size_t queued) {
  const int available = workers_->CountAvailable(job.labels);
  const int needed = static_cast<int>(job.labels.size());
  const int matching = workers_->CountMatching(job.labels);
  const std::string where = Ordinal(place) + " of " + std::to_string(queued) + " in the queue; ";
  std::string message = where + "waiting for workers: needs " + std::to_string(needed) + ", " +
                        std::to_string(available) + " idle and matching";
  const std::string timeout_s = std::to_string(unschedulable_timeout_.count());
  absl::MutexLock lock(&job.mutex);
  if (matching < needed && unschedulable_timeout_.count() > 0) {
    // Busy workers will not do: the pool is too small for this job.
    const auto now = recorder_->clock()->Now();
    if (!job.unschedulable_since) job.unschedulable_since = now;
    const bool labelled = std::any_of(job.labels.begin(), job.labels.end(),
                                      [](const std::string& l) { return !l.empty(); });
    const std::string why = "needs " + std::to_string(needed) + " workers" +
                            (labelled ? " (with the labels of its units)" : "") +
                            ", the pool has " + std::to_string(matching);
    if (now - *job.unschedulable_since >= unschedulable_timeout_) {
      job.status.set_state(v1::FAILED);
      job.status.set_message(std::string(job.resuming ? "could not resume: " : "") +
                             "cannot be scheduled: " + why + " (waited " + timeout_s +
                             " s for more to attach; see --unschedulable-timeout-s)");
      job.status.set_finished_unix_ms(recorder_->clock()->UnixMs());
      recorder_->Record(job);
      job.Touch();
      spdlog::warn("job {} {}", job.id, job.status.message());
      if (job.resuming) recorder_->DropCheckpoint(job, v1::FAILED);
      job.resuming = false;
      return false;
    }
    message = where + "cannot be scheduled yet: " + why + "; fails if no more attach within " +
              timeout_s + " s";
  } else {
    job.unschedulable_since.reset();
  }
  if (job.resuming) {
    message =
        (job.kind == JobKind::kSweep ? "resuming (its finished variants kept) once it has workers; "
                                     : "resuming from its checkpoint once it has workers; ") +
        message;
  }
  if (job.status.message() != message) {
    job.status.set_workers_available(available);
    job.status.set_message(message);
    job.Touch();
  }
  return true;
}

void Scheduler::Started(Job& job) {
  Clock* const clock = recorder_->clock();
  absl::MutexLock lock(&job.mutex);
  job.status.set_state(v1::RUNNING);
  job.status.set_message("");
  job.status.set_workers_available(0);
  if (!job.resuming || job.started_unix_ms == 0) {  // a resumption goes on with the job
    job.started = clock->Now();
    job.started_unix_ms = clock->UnixMs();
  }
  recorder_->Record(job);  // a failed write cancels the job: its runner ends it at once
  job.Touch();
}

}  // namespace cosimo::orchestrator
