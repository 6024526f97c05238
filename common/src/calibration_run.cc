// The fit loop of a calibration and its tables (cosimo/common/calibration.h): the optimiser's
// batches of points in the unit box become sweeps of the parameters' values, their tables
// residuals through the objective's loss.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "cosimo/common/calibration.h"

namespace cosimo {
namespace {

// rho(z) of the loss (docs/calibration.md, "Objective").
double Rho(const std::string& loss, double z) {
  if (loss == "soft_l1") return 2.0 * (std::sqrt(1.0 + z) - 1.0);
  if (loss == "huber") return z <= 1.0 ? z : 2.0 * std::sqrt(z) - 1.0;
  if (loss == "cauchy") return std::log1p(z);
  return z;
}

// The residuals through the loss: sign(r) f sqrt(rho(r^2 / f^2)), whose squares sum to the
// objective; least squares leaves them as they are.
Residuals ThroughLoss(const v1::CalibrationObjective& objective, Residuals r) {
  if (!r.has_value() || objective.loss().empty() || objective.loss() == "linear") return r;
  const double f = objective.f_scale() > 0.0 ? objective.f_scale() : 1.0;
  for (double& x : *r) {
    const double z = (x / f) * (x / f);
    x = std::copysign(f * std::sqrt(Rho(objective.loss(), z)), x);
  }
  return r;
}

OptimizerOptions OptionsOf(const v1::Calibration& c) {
  const v1::CalibrationOptimizer& o = c.optimizer();
  OptimizerOptions options;
  if (o.max_iterations() > 0) options.max_iterations = static_cast<int>(o.max_iterations());
  options.population = static_cast<int>(o.population());
  if (o.initial_step() > 0.0) options.initial_step = o.initial_step();
  if (o.f_tolerance() > 0.0) options.f_tolerance = o.f_tolerance();
  if (o.x_tolerance() > 0.0) options.x_tolerance = o.x_tolerance();
  if (o.diff_step() > 0.0) options.diff_step = o.diff_step();
  options.seed = c.seed();
  return options;
}

// The Jacobian in the parameters' units: column j divided by d value / d z at the estimate.
Eigen::MatrixXd InParameterUnits(const v1::Calibration& c, const Eigen::MatrixXd& j,
                                 const std::vector<double>& values) {
  Eigen::MatrixXd out = j;
  for (int i = 0; i < c.parameters_size(); ++i) {
    const v1::CalibrationParameter& p = c.parameters(i);
    const double span =
        p.scale() == "log" ? values[i] * std::log(p.upper() / p.lower()) : p.upper() - p.lower();
    out.col(i) /= span;
  }
  return out;
}

}  // namespace

BatchFunction CalibrationBatches(const LoadedCalibration& loaded, const SweepFunction& run) {
  return [&loaded, run](
             const std::vector<Eigen::VectorXd>& points) -> absl::StatusOr<std::vector<Residuals>> {
    const v1::Calibration& c = loaded.calibration;
    std::vector<std::vector<double>> values;
    for (const Eigen::VectorXd& z : points) values.push_back(FromBox(c, z));
    absl::StatusOr<ResultTable> table = run(CalibrationSweep(loaded, values));
    if (!table.ok()) return table.status();
    std::vector<Residuals> out;
    for (size_t k = 0; k < points.size(); ++k) {
      out.push_back(ThroughLoss(c.objective(), RowResiduals(loaded, *table, k)));
    }
    return out;
  };
}

absl::StatusOr<CalibrationResult> RunCalibration(const LoadedCalibration& loaded,
                                                 const SweepFunction& run,
                                                 const IterationCallback& on_iteration) {
  return RunCalibrationBatches(loaded, CalibrationBatches(loaded, run), on_iteration);
}

absl::StatusOr<CalibrationResult> RunCalibrationBatches(const LoadedCalibration& loaded,
                                                        const BatchFunction& evaluate,
                                                        const IterationCallback& on_iteration) {
  const v1::Calibration& c = loaded.calibration;
  std::vector<double> start;
  for (const v1::CalibrationParameter& p : c.parameters()) start.push_back(p.start());
  const OptimizerOptions options = OptionsOf(c);
  absl::StatusOr<OptimizerResult> result =
      c.optimizer().kind() == "levenberg_marquardt"
          ? MinimizeLevenbergMarquardt(ToBox(c, start), options, evaluate, on_iteration)
          : MinimizeCmaes(ToBox(c, start), options, evaluate, on_iteration);
  if (!result.ok()) return result.status();
  CalibrationResult out;
  out.estimates = FromBox(c, result->x);
  Eigen::VectorXd range(c.parameters_size());
  for (int i = 0; i < c.parameters_size(); ++i) {
    range[i] = c.parameters(i).upper() - c.parameters(i).lower();
  }
  out.statistics = ComputeFitStatistics(InParameterUnits(c, result->jacobian, out.estimates),
                                        result->residuals, range);
  out.optimizer = *std::move(result);
  return out;
}

ResultTable IterationsTable(const LoadedCalibration& loaded, const OptimizerResult& result) {
  CalibrationResult r;
  r.optimizer = result;
  r.estimates = FromBox(loaded.calibration, result.x);
  const auto n = static_cast<Eigen::Index>(loaded.calibration.parameters_size());
  r.statistics.standard_errors = Eigen::VectorXd::Zero(n);
  r.statistics.correlation = Eigen::MatrixXd::Zero(n, n);
  r.statistics.undetermined.assign(static_cast<size_t>(n), false);
  return IterationsTable(loaded.calibration, ToFitResult(loaded, r));
}

ResultTable IterationsTable(const v1::Calibration& c, const v1::FitResult& result) {
  ResultTable table;
  table.columns = {"iteration", "evaluations", "objective"};
  for (const v1::CalibrationParameter& p : c.parameters()) table.columns.push_back(p.name());
  for (const v1::FitIteration& record : result.history()) {
    table.values.insert(table.values.end(),
                        {static_cast<double>(record.iteration()),
                         static_cast<double>(record.evaluations()), record.objective()});
    table.values.insert(table.values.end(), record.parameters().begin(), record.parameters().end());
  }
  return table;
}

ResultTable EstimatesTable(const LoadedCalibration& loaded, const CalibrationResult& result) {
  return EstimatesTable(loaded.calibration, ToFitResult(loaded, result));
}

ResultTable EstimatesTable(const v1::Calibration& c, const v1::FitResult& result) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const int n = c.parameters_size();
  ResultTable table;
  table.columns = {"parameter", "estimate", "standard_error", "lower", "upper", "determined"};
  table.types = {ValueType::kString, ValueType::kReal, ValueType::kReal,
                 ValueType::kReal,   ValueType::kReal, ValueType::kString};
  for (const v1::CalibrationParameter& p : c.parameters()) {
    table.columns.push_back("corr(" + p.name() + ")");
    table.types.push_back(ValueType::kReal);
  }
  for (int i = 0; i < n; ++i) {
    const v1::CalibrationParameter& p = c.parameters(i);
    table.values.insert(table.values.end(), {kNaN, result.estimates(i), result.standard_errors(i),
                                             p.lower(), p.upper(), kNaN});
    for (int j = 0; j < n; ++j) table.values.push_back(result.correlation(i * n + j));
    table.strings.insert(table.strings.end(), {p.name(), result.undetermined(i) ? "no" : "yes"});
  }
  return table;
}

}  // namespace cosimo
