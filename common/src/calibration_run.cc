// The fit loop of a calibration and its tables (cosimo/common/calibration.h): the optimiser's
// batches of points in the unit box become sweeps of the parameters' values, their tables
// residuals through the objective's loss.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

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

// d/dr of a residual through the loss, g(r) = sign(r) f sqrt(rho(z)), z = r^2 / f^2:
// rho'(z) |r| / (f sqrt(rho(z))), 1 at r = 0.
double LossSlope(const v1::CalibrationObjective& objective, double r) {
  const std::string& loss = objective.loss();
  if (loss.empty() || loss == "linear" || r == 0.0) return 1.0;
  const double f = objective.f_scale() > 0.0 ? objective.f_scale() : 1.0;
  const double z = (r / f) * (r / f);
  double slope = 1.0;  // rho'(z)
  if (loss == "soft_l1") slope = 1.0 / std::sqrt(1.0 + z);
  if (loss == "huber") slope = z <= 1.0 ? 1.0 : 1.0 / std::sqrt(z);
  if (loss == "cauchy") slope = 1.0 / (1.0 + z);
  return slope * std::abs(r) / (f * std::sqrt(Rho(loss, z)));
}

// d value / d z of each parameter at `values` (the box map's slope).
Eigen::VectorXd BoxSlopes(const v1::Calibration& c, const std::vector<double>& values) {
  Eigen::VectorXd out(c.parameters_size());
  for (int i = 0; i < c.parameters_size(); ++i) {
    const v1::CalibrationParameter& p = c.parameters(i);
    out[i] =
        p.scale() == "log" ? values[i] * std::log(p.upper() / p.lower()) : p.upper() - p.lower();
  }
  return out;
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
  const Eigen::VectorXd slopes = BoxSlopes(c, values);
  for (int i = 0; i < c.parameters_size(); ++i) out.col(i) /= slopes[i];
  return out;
}

// The Jacobian function of a fit from its sensitivities' batch function, forward differences of
// `evaluate` where a point's variant failed (counted in *fallbacks).
JacobianFunction SensitivityJacobian(const LoadedCalibration& loaded,
                                     const BatchFunction& sensitivities,
                                     const BatchFunction& evaluate, const OptimizerOptions& options,
                                     int* fallbacks) {
  return [&loaded, &sensitivities, &evaluate, options, fallbacks](
             const Eigen::VectorXd& x, const Eigen::VectorXd& r,
             int* evaluations) -> absl::StatusOr<Eigen::MatrixXd> {
    absl::StatusOr<std::vector<Residuals>> rs = sensitivities({x});
    if (!rs.ok()) return rs.status();
    ++*evaluations;
    const auto m = static_cast<Eigen::Index>(loaded.samples());
    const Eigen::Index n = x.size();
    const Residuals& got = rs->front();
    if (got.has_value() && got->size() == m * (1 + n) && got->allFinite()) {
      return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(got->data() + m, m, n));
    }
    ++*fallbacks;
    return FiniteDifferenceJacobian(x, r, options.diff_step, evaluate, evaluations);
  };
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

BatchFunction CalibrationSensitivityBatches(const LoadedCalibration& loaded,
                                            const SweepFunction& run) {
  return [&loaded, run](
             const std::vector<Eigen::VectorXd>& points) -> absl::StatusOr<std::vector<Residuals>> {
    const v1::Calibration& c = loaded.calibration;
    std::vector<std::vector<double>> values;
    for (const Eigen::VectorXd& z : points) values.push_back(FromBox(c, z));
    absl::StatusOr<ResultTable> table = run(CalibrationSensitivitySweep(loaded, values));
    if (!table.ok()) return table.status();
    std::vector<Residuals> out;
    const auto m = static_cast<Eigen::Index>(loaded.samples());
    const auto n = static_cast<Eigen::Index>(c.parameters_size());
    for (size_t k = 0; k < points.size(); ++k) {
      const Residuals r = RowResiduals(loaded, *table, k);
      std::optional<Eigen::MatrixXd> j = RowSensitivities(loaded, *table, k);
      if (!r.has_value() || !j.has_value()) {
        out.emplace_back(std::nullopt);
        continue;
      }
      // Through the loss (row by row) and into the box (column by column).
      const Eigen::VectorXd slopes = BoxSlopes(c, values[k]);
      for (Eigen::Index i = 0; i < m; ++i) j->row(i) *= LossSlope(c.objective(), (*r)[i]);
      for (Eigen::Index p = 0; p < n; ++p) j->col(p) *= slopes[p];
      Eigen::VectorXd both(m * (1 + n));
      both.head(m) = *ThroughLoss(c.objective(), r);
      both.tail(m * n) = Eigen::Map<const Eigen::VectorXd>(j->data(), m * n);
      out.emplace_back(std::move(both));
    }
    return out;
  };
}

absl::StatusOr<std::string> WhyNoSensitivities(const LoadedCalibration& loaded,
                                               const ScenarioCheck& check) {
  const std::string& asked = loaded.calibration.optimizer().jacobian();
  if (asked == "finite_differences") return std::string("optimizer.jacobian finite_differences");
  const v1::Algorithm::Kind kind = loaded.base.algorithm().kind();
  if (asked != "sensitivities" &&
      (kind == v1::Algorithm::FIXED_POINT || kind == v1::Algorithm::NEWTON)) {
    // Measured: fig12.dual_mass.jacobians, docs/calibration.md#the-jacobian.
    return "the algorithm is " + v1::Algorithm::Kind_Name(kind) +
           ", whose iteration over the coupled signals costs more with theirs than the finite "
           "differences do; optimizer.jacobian sensitivities asks for them";
  }
  if (asked != "sensitivities") {
    for (const v1::Unit& unit : loaded.base.units()) {
      if (!unit.has_fmu() || !unit.has_solver()) continue;  // a Co-Simulation FMU: below
      // Measured: fig12.fmu.jacobians, docs/calibration.md#the-jacobian.
      return "unit '" + unit.name() +
             "' is an FMU: its sensitivities take 1 + 2 x (its parameters) instances of it and "
             "cost several times the finite differences; optimizer.jacobian sensitivities asks "
             "for them";
    }
  }
  absl::StatusOr<v1::Scenario> base = CalibrationSensitivityBase(loaded);
  absl::Status s = base.status();
  if (s.ok()) s = CheckSweepAgainstBase(CalibrationSensitivitySweep(loaded, {}), *base, check);
  if (s.ok()) return std::string();
  if (asked == "sensitivities") {
    return absl::InvalidArgumentError("optimizer.jacobian: forward sensitivities cannot be had: " +
                                      std::string(s.message()));
  }
  return std::string(s.message());
}

absl::StatusOr<CalibrationResult> RunCalibration(const LoadedCalibration& loaded,
                                                 const SweepFunction& run,
                                                 const IterationCallback& on_iteration) {
  return RunCalibrationBatches(loaded, CalibrationBatches(loaded, run), on_iteration);
}

absl::StatusOr<CalibrationResult> RunCalibrationBatches(const LoadedCalibration& loaded,
                                                        const BatchFunction& evaluate,
                                                        const IterationCallback& on_iteration,
                                                        const BatchFunction& sensitivities,
                                                        const std::string& no_sensitivities) {
  const v1::Calibration& c = loaded.calibration;
  std::vector<double> start;
  for (const v1::CalibrationParameter& p : c.parameters()) start.push_back(p.start());
  const OptimizerOptions options = OptionsOf(c);
  int fallbacks = 0;
  JacobianFunction jacobian;
  if (sensitivities) {
    jacobian = SensitivityJacobian(loaded, sensitivities, evaluate, options, &fallbacks);
  }
  absl::StatusOr<OptimizerResult> result =
      c.optimizer().kind() == "levenberg_marquardt"
          ? MinimizeLevenbergMarquardt(ToBox(c, start), options, evaluate, on_iteration, jacobian)
          : MinimizeCmaes(ToBox(c, start), options, evaluate, on_iteration, jacobian);
  if (!result.ok()) return result.status();
  CalibrationResult out;
  if (!sensitivities) {
    out.jacobian = "finite differences of variants";
    if (!no_sensitivities.empty()) {
      out.jacobian += " (no forward sensitivities: " + no_sensitivities + ")";
    }
  } else {
    out.jacobian = "forward sensitivities";
    if (fallbacks > 0) {
      absl::StrAppend(&out.jacobian, " (", fallbacks,
                      " by finite differences of variants: their sensitivities' run failed)");
    }
  }
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
