#include "orchestrator/src/metrics.h"

#include <algorithm>

namespace cosimo::orchestrator {

Histogram::Histogram(std::vector<double> upper_bounds) {
  counts_.counts.assign(upper_bounds.size() + 1, 0);
  counts_.upper_bounds = std::move(upper_bounds);
}

void Histogram::Observe(double value) {
  // The first bucket whose upper bound is >= value (Prometheus' buckets are "less or equal").
  absl::MutexLock lock(&mutex_);
  const auto it = std::lower_bound(counts_.upper_bounds.begin(), counts_.upper_bounds.end(), value);
  ++counts_.counts[static_cast<size_t>(it - counts_.upper_bounds.begin())];
  counts_.sum += value;
  ++counts_.count;
}

Histogram::Counts Histogram::Read() const {
  absl::MutexLock lock(&mutex_);
  return counts_;
}

std::vector<double> DurationBuckets() {
  return {1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025,
          0.05, 0.1,    0.25, 0.5,  1.0,    2.5,  5.0,  10.0};
}

Metrics::Metrics() : step_seconds_(DurationBuckets()) {}

void Metrics::OnAcceptedStep(const std::string& job_id, uint64_t steps_accepted,
                             uint64_t steps_rejected, uint64_t iterations, double wall_seconds) {
  step_seconds_.Observe(wall_seconds);
  absl::MutexLock lock(&mutex_);
  JobCounters& c = jobs_[job_id];
  c.steps_accepted = steps_accepted;
  c.steps_rejected = steps_rejected;
  c.iterations = iterations;
}

std::shared_ptr<Histogram> Metrics::WorkerRoundTrip(const std::string& worker_id) {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Histogram>& h = workers_[worker_id];
  if (!h) h = std::make_shared<Histogram>(DurationBuckets());
  return h;
}

Metrics::Snapshot Metrics::Read(const std::set<std::string>& jobs,
                                const std::set<std::string>& workers) {
  Snapshot snapshot;
  snapshot.step_seconds = step_seconds_.Read();
  absl::MutexLock lock(&mutex_);
  std::erase_if(jobs_, [&](const auto& entry) { return !jobs.contains(entry.first); });
  std::erase_if(workers_, [&](const auto& entry) { return !workers.contains(entry.first); });
  snapshot.jobs = jobs_;
  for (const auto& [id, histogram] : workers_) snapshot.worker_round_trip[id] = histogram->Read();
  return snapshot;
}

}  // namespace cosimo::orchestrator
