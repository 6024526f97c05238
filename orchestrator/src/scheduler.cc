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

std::vector<Scheduler::Start> Scheduler::Pass() {
  std::vector<Start> started;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Job& job = **it;
    if (job.cancel) {
      Drop(job);
      it = queue_.erase(it);
      continue;
    }
    std::optional<WorkerLease> lease = workers_->TryAcquire(job.labels, job.id);
    if (!lease) {
      it = KeepWaiting(job) ? it + 1 : queue_.erase(it);
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

bool Scheduler::KeepWaiting(Job& job) {
  const int available = workers_->CountAvailable(job.labels);
  const int needed = static_cast<int>(job.labels.size());
  const int matching = workers_->CountMatching(job.labels);
  std::string message = "waiting for workers: needs " + std::to_string(needed) + ", " +
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
    message =
        "cannot be scheduled yet: " + why + "; fails if no more attach within " + timeout_s + " s";
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
