// SweepRunner: a parameter sweep job (JobRunner, docs/sweeps.md). Its scenario is the sweep's
// base and JobStatus.sweep the sweep. Each variant runs on the workers of one lease, one variant
// at a time per lease, or as many as the lease's worker has slots for when the variants run whole
// on it (sweep_variant.h, VariantsAtOnce): the first lease is the scheduler's (one worker slot per
// unit of the base), and while variants wait the runner takes more leases from the pool
// (RunnerEnv::workers) as long as the job's share of the pool allows (RunnerEnv::share,
// DecideShare in scheduler.h), up to kMaxSweepLanes at once, each run by a thread of its own (a
// lane). A variant that fails is a FAILED row, not the end of the sweep.
//
// The pool is shared (docs/deployment.md, "Sharing the pool"): between two variants a lane whose
// job holds more workers than its share gives its lease back, so that a job that waits starts.
// A sweep that gave back every lease is paused: still RUNNING, with its start time, its message
// saying it waits; it takes a lease again once its share has one free. A paused sweep whose
// workers are all gone ends its run as after a lost worker (queued again to resume).
//
// Every finished variant's row is appended to the job's checkpoint in the store (the sweep
// table so far, JobCheckpoint.columns / values / strings, in the order they finished), so that
// a sweep that resumes (after an orchestrator restart, JobManager::Recover, or after its every
// lane lost its workers) keeps them and runs only the others. A variant whose worker was lost
// runs again on another lane, or on the job's next lease once it resumes. A cancel stops every
// lane (the job ends CANCELED), its workers staying attached (the commands in flight get a
// moment to end: kCancelGrace); the orchestrator's shutdown leaves the job RUNNING in the store,
// to resume at the next start. At the end the table, one row per variant in index order, is the
// job's results (GetResults).
//
// Thread safety: Run on the job's thread; the lanes share the run's state under its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/sweep.pb.h"
#include "orchestrator/src/job_runner.h"
#include "orchestrator/src/job_store.h"

namespace cosimo::orchestrator {

// A submitted sweep's first status: the sweep without its base, its number of variants.
v1::SweepStatus NewSweepStatus(const v1::Sweep& sweep);

// The JobStore id of a sweep job's variant's full results (keep_results ALL): "<job>/variant-K".
// The store's Delete of the job removes them with it.
std::string VariantResultsId(const std::string& job_id, uint64_t variant);
// Whether `status`'s job may have variant `variant`'s full results: a sweep (FailedPrecondition
// otherwise) that keeps them (FailedPrecondition naming keep_results), `variant` one of its
// variants (InvalidArgument).
[[nodiscard]] absl::Status CheckVariantResults(const v1::JobStatus& status, uint64_t variant);

// The table of a sweep that has not succeeded (RUNNING, FAILED or CANCELED): the rows of its
// finished variants (its checkpoint, kept until it succeeds or is deleted) and a CANCELED
// "not run" row for each other variant, in index order; metadata.partial set.
[[nodiscard]] absl::StatusOr<StoredResults> UnfinishedSweepTable(const v1::JobStatus& status,
                                                                 JobStore& store);

class SweepRunner final : public JobRunner {
 public:
  explicit SweepRunner(RunnerEnv env) : env_(std::move(env)) {}

  void Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
           WorkerLease lease) override;

 private:
  const RunnerEnv env_;
};

}  // namespace cosimo::orchestrator
