// Calibrations (cosimo.v1.Calibration, proto/cosimo/v1/calibration.proto; docs/calibration.md):
// reading and checking the file and its measured data, the map of the parameters onto the unit
// box the optimisers search (optimizer.h), each batch of points as a sweep of variants (a LIST
// design with one AT KPI per measured sample, cosimo/common/sweep.h), the residuals of a
// variant's row of the sweep table, and the fit loop over a function that runs such sweeps.
//
// ParseCalibrationJson maps the JSON (errors name the line and column, or the field path);
// ValidateCalibration checks the calibration on its own (every problem at once, each naming its
// field); LoadCalibrationFile reads the file, its base scenario and its CSV (the columns checked
// with the rest); CheckCalibrationAgainstBase checks it against the base with the caller's
// scenario checks. Stateless and thread safe, but for RunCalibration's calls of its callbacks
// (on the caller's thread).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/optimizer.h"
#include "cosimo/common/sweep.h"
#include "cosimo/v1/calibration.pb.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/v1/sweep.pb.h"

namespace cosimo {

[[nodiscard]] absl::StatusOr<v1::Calibration> ParseCalibrationJson(std::string_view json);

// Every problem of the calibration on its own, InvalidArgument listing them.
[[nodiscard]] absl::Status ValidateCalibration(const v1::Calibration& calibration);

// One measured column: its samples (empty cells skipped) and the factor of its residuals
// (1 / standard_deviation, or sqrt(weight), else 1).
struct MeasuredSeries {
  std::string column;
  std::string variable;
  std::vector<double> times;
  std::vector<double> values;
  double factor = 1.0;
};

struct LoadedCalibration {
  v1::Calibration calibration;
  v1::Scenario base;
  std::vector<MeasuredSeries> data;
  size_t samples() const;  // residuals per variant
};

// The file read and checked (ValidateCalibration, then the CSV's columns and times), with its
// base scenario and measured data (paths relative to the file's folder). Errors start with the
// file's path.
[[nodiscard]] absl::StatusOr<LoadedCalibration> LoadCalibrationFile(const std::string& path);

// The parameters' values of a point z of the unit box: lower + (upper - lower) z, or
// exp(log lower + (log upper - log lower) z) for "log"; and back.
std::vector<double> FromBox(const v1::Calibration& calibration, const Eigen::VectorXd& z);
Eigen::VectorXd ToBox(const v1::Calibration& calibration, const std::vector<double>& values);

// The sweep that evaluates the points (each the parameters' values, in order): a LIST design,
// one AT KPI per measured sample named "d<column>_<sample>" ("d0_12": column 0's 13th sample).
v1::Sweep CalibrationSweep(const LoadedCalibration& loaded,
                           const std::vector<std::vector<double>>& points);

// The Jacobian from forward sensitivities (docs/calibration.md#the-jacobian). The base that also
// computes the measured variables' sensitivities to the parameters (SensitivityScenario,
// cosimo/common/sensitivities.h); FailedPrecondition naming the unit, parameter or connection
// that cannot give them.
[[nodiscard]] absl::StatusOr<v1::Scenario> CalibrationSensitivityBase(
    const LoadedCalibration& loaded);
// CalibrationSweep's with, after its KPIs, one per sample and parameter j,
// "s<column>_<sample>_<j>": the variable's sensitivity to parameter j at the sample's time (to run
// on that base).
v1::Sweep CalibrationSensitivitySweep(const LoadedCalibration& loaded,
                                      const std::vector<std::vector<double>>& points);
// Row `row`'s Jacobian of its residuals (RowResiduals, before the loss) with respect to the
// parameters' values, samples x parameters; nullopt when the variant did not succeed.
std::optional<Eigen::MatrixXd> RowSensitivities(const LoadedCalibration& loaded,
                                                const ResultTable& table, size_t row);

// A loaded calibration against its base: its sweep (CheckSweepAgainstBase with the start values:
// the parameters apply, the measured variables are recorded), the measured times within the
// base's [start_time, stop_time], and optimizer.jacobian "sensitivities" only where they can be
// had (WhyNoSensitivities). Errors name the field.
[[nodiscard]] absl::Status CheckCalibrationAgainstBase(const LoadedCalibration& loaded,
                                                       const ScenarioCheck& check);

// The residuals of row `row` of a CalibrationSweep's table: factor (simulated - measured) per
// sample, in order of the columns and their samples; nullopt when the variant did not succeed
// (its KPIs NaN).
Residuals RowResiduals(const LoadedCalibration& loaded, const ResultTable& table, size_t row);

// Runs a sweep (a batch of points) and returns its table, one row per variant in index order.
using SweepFunction = std::function<absl::StatusOr<ResultTable>(const v1::Sweep&)>;

struct CalibrationResult {
  OptimizerResult optimizer;      // in the unit box, the residuals after the loss
  std::vector<double> estimates;  // the best point's parameters' values
  FitStatistics statistics;       // in the parameters' units
  std::string jacobian;           // how the Jacobians were computed (FitResult.jacobian)
};

// The fit: the optimiser the calibration names from its start values, each batch of points one
// sweep run by `run`; the residuals go through the objective's loss (a residual r becomes
// sign(r) f sqrt(rho(r^2 / f^2)), so that the sum of their squares is the objective). Then the
// statistics from the Jacobian at the optimum. `on_iteration` (may be empty) after each
// iteration.
[[nodiscard]] absl::StatusOr<CalibrationResult> RunCalibration(
    const LoadedCalibration& loaded, const SweepFunction& run,
    const IterationCallback& on_iteration);

// The batch function of the fit: each batch of points (in the unit box) one sweep run by `run`,
// its rows' residuals through the objective's loss. RunCalibration's, for a caller that wraps it
// (a calibration job answers the batches it stored before a resumption, fit_runner.h).
BatchFunction CalibrationBatches(const LoadedCalibration& loaded, const SweepFunction& run);

// The batch function of the Jacobians from forward sensitivities: each point one variant of
// CalibrationSensitivitySweep run by `run` (on CalibrationSensitivityBase), its "residuals" m
// residuals through the loss and then the m x n Jacobian in the unit box, column by column
// (m (1 + n) values); nullopt when the variant failed.
BatchFunction CalibrationSensitivityBatches(const LoadedCalibration& loaded,
                                            const SweepFunction& run);

// Where the Jacobians come from for optimizer.jacobian: the reason forward sensitivities are not
// used, empty when they are (CalibrationSensitivityBase works and `check`, the caller's scenario
// checks, passes its base; under "auto" the base's algorithm is also JACOBI or GAUSS_SEIDEL and
// no unit is an FMU: where they cost more than the finite differences, fig12);
// InvalidArgument when "sensitivities" was asked for and cannot be.
[[nodiscard]] absl::StatusOr<std::string> WhyNoSensitivities(const LoadedCalibration& loaded,
                                                             const ScenarioCheck& check);

// RunCalibration over a batch function (CalibrationBatches, or one wrapping it). With
// `sensitivities` (CalibrationSensitivityBatches, or one wrapping it) every Jacobian is one
// evaluation of it, forward differences of `evaluate` where it fails; `no_sensitivities` says why
// there is none, for CalibrationResult::jacobian.
[[nodiscard]] absl::StatusOr<CalibrationResult> RunCalibrationBatches(
    const LoadedCalibration& loaded, const BatchFunction& evaluate,
    const IterationCallback& on_iteration, const BatchFunction& sensitivities = {},
    const std::string& no_sensitivities = "");

// A calibration as one job (v1::CalibrationJob): the calibration and its measured samples;
// and back, with the job's base scenario: InvalidArgument naming the field when the calibration
// does not validate or its samples are not one per data column with as many times as values,
// the times finite and strictly increasing, and a finite positive factor.
v1::CalibrationJob ToCalibrationJob(const LoadedCalibration& loaded);
[[nodiscard]] absl::StatusOr<LoadedCalibration> FromCalibrationJob(const v1::CalibrationJob& job,
                                                                   const v1::Scenario& base);

// What a fit found as its message (JobStatus.fit.result), exactly: the same doubles.
v1::FitResult ToFitResult(const LoadedCalibration& loaded, const CalibrationResult& result);

// The history as a table: iteration, evaluations, objective, then each parameter's value.
ResultTable IterationsTable(const LoadedCalibration& loaded, const OptimizerResult& result);
ResultTable IterationsTable(const v1::Calibration& calibration, const v1::FitResult& result);
// The estimates: one row per parameter: parameter, estimate, standard_error, lower, upper,
// determined ("yes" / "no"), then its correlation with each parameter ("corr(<name>)").
ResultTable EstimatesTable(const LoadedCalibration& loaded, const CalibrationResult& result);
ResultTable EstimatesTable(const v1::Calibration& calibration, const v1::FitResult& result);

}  // namespace cosimo
