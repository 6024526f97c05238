// FitRunner: a calibration job (JobRunner, docs/calibration.md). JobStatus.fit carries the
// calibration and its measured data, the job's scenario is its base. The optimiser
// (RunCalibrationBatches, cosimo/common/calibration.h) runs on the job's thread; each batch of
// points it asks for runs as variants on the pool through the lanes of a sweep (SweepRun in feed
// mode, sweep_run.h): placed, run several at once on a worker's slots, rerun after a lost worker
// exactly as a sweep's. Then the best point runs once more, its full results kept as the job's
// results, and the estimates, statistics and history go into JobStatus.fit.result.
//
// Where every unit can give them, the Jacobians come from forward sensitivities
// (docs/calibration.md#the-jacobian): one variant of the sensitivities' base per Jacobian, fed to
// the same lanes (SweepRun::FeedKind::kSensitivities), its batch stored as the others are.
//
// Resumption, bit for bit: every finished batch (its points and their residuals, exact doubles;
// for sensitivities, the residuals followed by the Jacobian) is appended to the job's checkpoint
// in the store (EncodeFitBatch). A job that resumes (after
// an orchestrator restart, or after every lane lost its workers) runs the optimiser again from
// its start: it is deterministic, so it asks for the same points, and each batch stored is
// answered from the store (its points compared bit for bit with those asked: a mismatch fails
// the job, DataLoss) and only the batches after them run. The result equals an uninterrupted
// run's.
//
// A cancel ends the job between or within batches (CANCELED; a batch it stopped is not stored);
// the orchestrator's shutdown leaves it RUNNING in the store, to resume at the next start. A job
// that failed or was canceled keeps its stored batches: ResumeJob queues it again, to run on from
// them as a resumption does (JobManager::ResumeEnded).
//
// Its status carries the iterations so far (FitStatus.history, cleared at each start: a
// resumption's replay adds them again, in order) but not the calibration's measured samples,
// read from the store (JobStore::LoadCalibrationSamples) when it starts.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/optimizer.h"
#include "orchestrator/src/job_runner.h"

namespace cosimo::orchestrator {

// One batch as stored: its points (each n values in the unit box) and their residuals (m each;
// nullopt: the point's variant failed).
struct FitBatch {
  std::vector<Eigen::VectorXd> points;
  std::vector<Residuals> residuals;
};
// The doubles of a batch in the checkpoint's values: the number of points P, n, m, then per
// point its n coordinates, 1 or 0 (residuals or none) and m residuals (NaN without).
std::vector<double> EncodeFitBatch(const FitBatch& batch, size_t m);
// The batches of the stored doubles, in order; DataLoss when they do not parse.
[[nodiscard]] absl::StatusOr<std::vector<FitBatch>> DecodeFitBatches(
    const std::vector<double>& values);

class FitRunner final : public JobRunner {
 public:
  explicit FitRunner(RunnerEnv env) : env_(std::move(env)) {}

  void Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
           WorkerLease lease) override;

 private:
  const RunnerEnv env_;
};

}  // namespace cosimo::orchestrator
