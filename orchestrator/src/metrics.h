// The orchestrator's metrics registry: what observers of the running jobs and of the workers'
// commands record, read by the HTTP server's /metrics (orchestrator/src/http/). The master knows
// nothing of it: the job manager's observer of accepted steps feeds the per-job counters and the
// step time histogram, and RemoteUnit the workers' round trips.
//
// Series of a job or a worker live as long as it does: Snapshot keeps only the jobs and workers
// it is told still exist and forgets the rest, so finished jobs stay until deleted (by a client
// or --job-retention-days) and a detached worker's series go with it.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cosimo::orchestrator {

// Observations into fixed buckets (seconds). Thread safe.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);

  struct Counts {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> counts;  // per bucket, one more than upper_bounds (above the last)
    double sum = 0.0;
    uint64_t count = 0;
  };
  Counts Read() const;

 private:
  mutable absl::Mutex mutex_;
  Counts counts_ ABSL_GUARDED_BY(mutex_);
};

// Buckets for durations from 100 µs to 10 s (a macro step, a command's round trip).
std::vector<double> DurationBuckets();

class Metrics {
 public:
  Metrics();

  // An accepted macro step of `job_id`: the job's totals so far (steps accepted and rejected,
  // iterations) and the wall time since the previous accepted step (or since the units were
  // initialised), s.
  void OnAcceptedStep(const std::string& job_id, uint64_t steps_accepted, uint64_t steps_rejected,
                      uint64_t iterations, double wall_seconds);
  // The histogram of one worker's command round trips (send to reply, the unit's work included),
  // made on first use. Callers keep it for a job's duration, so a step takes no lookup.
  std::shared_ptr<Histogram> WorkerRoundTrip(const std::string& worker_id);

  struct JobCounters {
    uint64_t steps_accepted = 0;
    uint64_t steps_rejected = 0;
    uint64_t iterations = 0;
  };
  struct Snapshot {
    std::map<std::string, JobCounters> jobs;  // by job id
    Histogram::Counts step_seconds;
    std::map<std::string, Histogram::Counts> worker_round_trip;  // by worker id
  };
  // The metrics of the jobs in `jobs` and the workers in `workers`; the series of any other job
  // or worker are forgotten.
  Snapshot Read(const std::set<std::string>& jobs, const std::set<std::string>& workers);

 private:
  absl::Mutex mutex_;
  std::map<std::string, JobCounters> jobs_ ABSL_GUARDED_BY(mutex_);
  Histogram step_seconds_;  // thread safe by itself
  std::map<std::string, std::shared_ptr<Histogram>> workers_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace cosimo::orchestrator
