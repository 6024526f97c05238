#include "orchestrator/src/fit_runner.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/status.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/common/version.h"
#include "orchestrator/src/sweep_run.h"

namespace cosimo::orchestrator {
namespace {

// The checkpoint's one column: its values are the batches' doubles (EncodeFitBatch).
constexpr char kBatchesColumn[] = "fit batches";

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

// One run of a calibration job: the optimiser here, its batches on the lanes.
class FitRun {
 public:
  FitRun(const RunnerEnv& env, std::shared_ptr<Job> job, const v1::Scenario& base,
         LoadedCalibration loaded)
      : env_(env),
        job_(std::move(job)),
        loaded_(std::move(loaded)),
        lanes_(env, job_, base, CalibrationSweep(loaded_, {})) {}

  // The batches stored before (a resumption), then the fit, the best run and the job's end.
  void Run(WorkerLease lease);

 private:
  [[nodiscard]] absl::Status LoadBatches();
  // A batch: answered from the store when it was stored (the points bit for bit), else run.
  absl::StatusOr<std::vector<Residuals>> Evaluate(const std::vector<Eigen::VectorXd>& points,
                                                  const BatchFunction& run);
  // One sweep of variants of this kind on the lanes, its table (one row per variant, in order).
  absl::StatusOr<ResultTable> RunSweep(const v1::Sweep& sweep, SweepRun::FeedKind kind);
  // Whether the Jacobians come from forward sensitivities (the lanes then know their base), and
  // why not (empty when they do). InvalidArgument when they were asked for and cannot be.
  [[nodiscard]] absl::StatusOr<std::string> ChooseJacobian();
  [[nodiscard]] absl::Status StoreBatch(const FitBatch& batch);
  void OnIteration(const IterationRecord& record);
  // The best point's full results as the job's results.
  [[nodiscard]] absl::Status RunBest(const std::vector<double>& estimates);
  void End(const absl::StatusOr<CalibrationResult>& result);

  const RunnerEnv& env_;
  const std::shared_ptr<Job> job_;
  const LoadedCalibration loaded_;
  SweepRun lanes_;
  std::vector<FitBatch> stored_;  // read back at the start
  size_t batches_ = 0;            // asked so far
  uint64_t stored_values_ = 0;    // doubles in the checkpoint
  std::chrono::steady_clock::time_point stored_at_;
};

absl::Status FitRun::LoadBatches() {
  absl::StatusOr<v1::JobCheckpoint> checkpoint = env_.recorder->store()->LoadCheckpoint(job_->id);
  if (checkpoint.status().code() == absl::StatusCode::kNotFound) return absl::OkStatus();
  if (!checkpoint.ok()) return checkpoint.status();
  if (checkpoint->columns_size() != 1 || checkpoint->columns(0) != kBatchesColumn) {
    return absl::OkStatus();  // none stored
  }
  const std::vector<double> values(checkpoint->values().begin(), checkpoint->values().end());
  absl::StatusOr<std::vector<FitBatch>> batches = DecodeFitBatches(values);
  if (!batches.ok()) return batches.status();
  stored_ = *std::move(batches);
  stored_values_ = values.size();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Residuals>> FitRun::Evaluate(const std::vector<Eigen::VectorXd>& points,
                                                        const BatchFunction& run) {
  const size_t b = batches_++;
  if (b < stored_.size()) {
    const FitBatch& stored = stored_[b];
    bool same = stored.points.size() == points.size();
    for (size_t i = 0; same && i < points.size(); ++i) same = SameBits(stored.points[i], points[i]);
    if (!same) {
      return absl::DataLossError(absl::StrCat(
          "the resumed fit asked for other points in its batch ", b + 1,
          " than the stored batch holds: the optimiser did not repeat its run (another "
          "orchestrator version, or another machine's math library?)"));
    }
    absl::MutexLock lock(&job_->mutex);
    job_->status.mutable_fit()->set_batches_replayed(static_cast<uint32_t>(b + 1));
    return stored.residuals;
  }
  absl::StatusOr<std::vector<Residuals>> residuals = run(points);
  if (!residuals.ok()) return residuals.status();
  if (absl::Status s = StoreBatch({points, *residuals}); !s.ok()) {
    // Kept here: a resumption would run the batch again.
    spdlog::warn("job {}: the fit's batch {} could not be stored: {}", job_->id, b + 1,
                 std::string(s.message()));
  }
  return residuals;
}

absl::Status FitRun::StoreBatch(const FitBatch& batch) {
  v1::JobCheckpoint rows;
  rows.add_columns(kBatchesColumn);
  // m residuals per point, or m (1 + n) for a batch of sensitivities.
  size_t m = loaded_.samples();
  for (const Residuals& r : batch.residuals) {
    if (r.has_value()) m = static_cast<size_t>(r->size());
  }
  const std::vector<double> values = EncodeFitBatch(batch, m);
  rows.mutable_values()->Add(values.begin(), values.end());
  rows.set_rows_from(stored_values_);
  COSIMO_RETURN_IF_ERROR(env_.recorder->store()->PutCheckpoint(job_->id, rows));
  stored_values_ += values.size();
  return absl::OkStatus();
}

absl::StatusOr<std::string> FitRun::ChooseJacobian() {
  absl::StatusOr<std::string> why = WhyNoSensitivities(loaded_, env_.check_scenario);
  if (!why.ok() || !why->empty()) return why;
  absl::StatusOr<v1::Scenario> base = CalibrationSensitivityBase(loaded_);
  if (!base.ok()) return std::string(base.status().message());
  lanes_.SetSensitivities(*std::move(base), CalibrationSensitivitySweep(loaded_, {}));
  return std::string();
}

absl::StatusOr<ResultTable> FitRun::RunSweep(const v1::Sweep& sweep, SweepRun::FeedKind kind) {
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  const std::vector<uint64_t> ks = lanes_.AddVariants(values, kind);
  absl::StatusOr<std::vector<VariantOutcome>> outcomes = lanes_.AwaitVariants(ks);
  if (!outcomes.ok()) return outcomes.status();
  // A variant the cancel (or the shutdown) stopped has no residuals to store: the batch is not
  // finished, and a resumption runs it again.
  for (const VariantOutcome& outcome : *outcomes) {
    if (outcome.status == v1::CANCELED || job_->cancel) return absl::CancelledError("canceled");
  }
  ResultTable table = SweepTableColumns(sweep);
  for (size_t i = 0; i < values.size(); ++i) AddSweepRow(&table, i, values[i], (*outcomes)[i]);
  return table;
}

void FitRun::OnIteration(const IterationRecord& record) {
  absl::MutexLock lock(&job_->mutex);
  v1::FitStatus* fit = job_->status.mutable_fit();
  fit->set_iteration(static_cast<uint32_t>(record.iteration));
  fit->set_evaluations(static_cast<uint64_t>(record.evaluations));
  fit->set_best_objective(record.objective);
  fit->clear_parameters();
  for (double v : FromBox(loaded_.calibration, record.x)) fit->add_parameters(v);
  v1::FitIteration* it = fit->add_history();
  it->set_iteration(fit->iteration());
  it->set_evaluations(fit->evaluations());
  it->set_objective(record.objective);
  *it->mutable_parameters() = fit->parameters();
  env_.recorder->Progressed(*job_, &stored_at_);
}

absl::Status FitRun::RunBest(const std::vector<double>& estimates) {
  const std::vector<uint64_t> ks = lanes_.AddVariants({estimates}, SweepRun::FeedKind::kKeep);
  absl::StatusOr<std::vector<VariantOutcome>> outcomes = lanes_.AwaitVariants(ks);
  if (!outcomes.ok()) return outcomes.status();
  VariantOutcome& best = outcomes->front();
  if (best.status != v1::SUCCEEDED || !best.results) {
    return absl::AbortedError("the run at the estimates failed: " + best.message);
  }
  const master::MasterResult& result = *best.results;
  StoredResults stored;
  static_cast<ResultTable&>(stored) = result;
  v1::ResultsMetadata& meta = stored.metadata;
  meta.set_steps_accepted(result.steps_accepted);
  meta.set_steps_rejected(result.steps_rejected);
  meta.set_iterations_mean(result.iterations_mean);
  meta.set_iterations_max(result.iterations_max);
  meta.set_algorithm(v1::Algorithm::Kind_Name(loaded_.base.algorithm().kind()));
  meta.set_start_time(loaded_.base.start_time());
  meta.set_stop_time(loaded_.base.stop_time());
  {
    absl::ReaderMutexLock lock(&job_->mutex);
    meta.set_started_unix_ms(job_->started_unix_ms);
  }
  meta.set_wall_seconds(best.wall_s);
  meta.set_finished_unix_ms(env_.recorder->clock()->UnixMs());
  meta.set_cosimo_version(kVersion);
  return env_.recorder->store()->PutResults(job_->id, stored);
}

void FitRun::Run(WorkerLease lease) {
  stored_at_ = env_.recorder->clock()->Now();
  {
    // A resumption's optimiser runs from its start again: its history comes again, in order.
    absl::MutexLock lock(&job_->mutex);
    job_->status.mutable_fit()->clear_history();
    job_->status.mutable_fit()->set_batches_replayed(0);
  }
  if (absl::Status s = LoadBatches(); !s.ok()) {
    lease.Release();
    env_.recorder->Finish(
        *job_, v1::FAILED,
        "the fit's stored batches could not be read back: " + std::string(s.message()));
    return;
  }
  spdlog::info("job {}: calibration of {} parameters, {} batches stored before", job_->id,
               loaded_.calibration.parameters_size(), stored_.size());
  const absl::StatusOr<std::string> no_sensitivities = ChooseJacobian();
  if (!no_sensitivities.ok()) {
    lease.Release();
    env_.recorder->Finish(*job_, v1::FAILED, std::string(no_sensitivities.status().message()));
    return;
  }
  if (!no_sensitivities->empty()) {
    spdlog::info(
        "job {}: Jacobians by finite differences of variants (no forward sensitivities: "
        "{})",
        job_->id, *no_sensitivities);
  }
  lanes_.PrepareFeed();
  std::thread lanes([this, l = std::move(lease)]() mutable { lanes_.RunLanes(std::move(l)); });
  const BatchFunction run = CalibrationBatches(loaded_, [this](const v1::Sweep& sweep) {
    return RunSweep(sweep, SweepRun::FeedKind::kPoint);
  });
  const BatchFunction run_sensitivities =
      CalibrationSensitivityBatches(loaded_, [this](const v1::Sweep& sweep) {
        return RunSweep(sweep, SweepRun::FeedKind::kSensitivities);
      });
  // Both kinds of batches are stored alike, and answered from the store on a resumption.
  const BatchFunction sensitivities =
      no_sensitivities->empty() ? BatchFunction([&](const std::vector<Eigen::VectorXd>& points) {
        return Evaluate(points, run_sensitivities);
      })
                                : BatchFunction();
  absl::StatusOr<CalibrationResult> result = RunCalibrationBatches(
      loaded_, [&](const std::vector<Eigen::VectorXd>& points) { return Evaluate(points, run); },
      [this](const IterationRecord& record) { OnIteration(record); }, sensitivities,
      *no_sensitivities);
  if (result.ok()) {
    if (absl::Status s = RunBest(result->estimates); !s.ok()) result = s;
  }
  lanes_.CloseFeed();
  lanes.join();
  End(result);
}

void FitRun::End(const absl::StatusOr<CalibrationResult>& result) {
  std::string reached;
  {
    absl::ReaderMutexLock lock(&job_->mutex);
    reached = absl::StrCat(" (iteration ", job_->status.fit().iteration(), ", ",
                           job_->status.fit().evaluations(), " runs)");
  }
  if (result.ok()) {
    {
      absl::MutexLock lock(&job_->mutex);
      *job_->status.mutable_fit()->mutable_result() = ToFitResult(loaded_, *result);
      job_->status.mutable_fit()->clear_history();  // result.history holds it
    }
    spdlog::info("job {}: fit done, objective {}", job_->id, result->optimizer.objective);
    env_.recorder->Finish(
        *job_, v1::SUCCEEDED,
        absl::StrCat(result->optimizer.stop_reason, " after ", result->optimizer.iterations,
                     " iterations, ", result->optimizer.evaluations, " runs"));
    return;
  }
  const absl::Status& s = result.status();
  if (EndCanceledJob(env_, *job_, "fit", reached)) return;
  if (s.code() == absl::StatusCode::kUnavailable) {  // every lane lost its workers
    const std::string why = env_.resume
                                ? env_.resume(job_,
                                              "workers were lost; the fit resumes from its stored "
                                              "batches once workers are free" +
                                                  reached)
                                : "no way to queue it again";
    if (why.empty()) return;
    env_.recorder->Finish(*job_, v1::FAILED,
                          "workers were lost and the fit could not resume: " + why + reached);
    return;
  }
  env_.recorder->Finish(*job_, v1::FAILED, std::string(s.message()) + reached);
}

}  // namespace

std::vector<double> EncodeFitBatch(const FitBatch& batch, size_t m) {
  const size_t n = batch.points.empty() ? 0 : static_cast<size_t>(batch.points.front().size());
  std::vector<double> out = {static_cast<double>(batch.points.size()), static_cast<double>(n),
                             static_cast<double>(m)};
  for (size_t p = 0; p < batch.points.size(); ++p) {
    out.insert(out.end(), batch.points[p].data(), batch.points[p].data() + n);
    const Residuals& r = batch.residuals[p];
    out.push_back(r.has_value() ? 1.0 : 0.0);
    for (size_t i = 0; i < m; ++i) {
      out.push_back(r.has_value() && static_cast<Eigen::Index>(i) < r->size()
                        ? (*r)[static_cast<Eigen::Index>(i)]
                        : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return out;
}

absl::StatusOr<std::vector<FitBatch>> DecodeFitBatches(const std::vector<double>& values) {
  std::vector<FitBatch> out;
  size_t at = 0;
  auto bad = [&] {
    return absl::DataLossError(
        absl::StrCat("the stored fit batches do not parse (batch ", out.size() + 1, ")"));
  };
  while (at < values.size()) {
    if (values.size() - at < 3) return bad();
    const double pd = values[at], nd = values[at + 1], md = values[at + 2];
    if (!(pd >= 0 && nd >= 0 && md >= 0 && pd < 1e9 && nd < 1e6 && md < 1e9)) return bad();
    const auto points = static_cast<size_t>(pd), n = static_cast<size_t>(nd),
               m = static_cast<size_t>(md);
    at += 3;
    if ((values.size() - at) / (n + 1 + m) < points) return bad();
    FitBatch batch;
    for (size_t p = 0; p < points; ++p) {
      batch.points.emplace_back(
          Eigen::Map<const Eigen::VectorXd>(&values[at], static_cast<Eigen::Index>(n)));
      at += n;
      const bool has = values[at++] != 0.0;
      if (has) {
        batch.residuals.emplace_back(
            Eigen::Map<const Eigen::VectorXd>(&values[at], static_cast<Eigen::Index>(m)));
      } else {
        batch.residuals.emplace_back(std::nullopt);
      }
      at += m;
    }
    out.push_back(std::move(batch));
  }
  return out;
}

void FitRunner::Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                    WorkerLease lease) {
  v1::CalibrationJob calibration;
  {
    absl::ReaderMutexLock lock(&job->mutex);
    calibration = job->status.fit().calibration();
  }
  // The samples are stored apart (JobStore::PutCalibrationSamples); a job recorded before that
  // has them in its status.
  if (calibration.samples().empty()) {
    absl::StatusOr<v1::CalibrationJob> samples =
        env_.recorder->store()->LoadCalibrationSamples(job->id);
    if (!samples.ok()) {
      lease.Release();
      env_.recorder->Finish(*job, v1::FAILED,
                            "the calibration's measured samples could not be read back: " +
                                std::string(samples.status().message()));
      return;
    }
    *calibration.mutable_samples() = samples->samples();
  }
  absl::StatusOr<LoadedCalibration> loaded = FromCalibrationJob(calibration, scenario);
  if (!loaded.ok()) {
    lease.Release();
    env_.recorder->Finish(*job, v1::FAILED, std::string(loaded.status().message()));
    return;
  }
  FitRun run(env_, job, scenario, *std::move(loaded));
  run.Run(std::move(lease));
}

}  // namespace cosimo::orchestrator
