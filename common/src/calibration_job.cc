// A calibration as one job of the orchestrator and what it found, as messages
// (cosimo/common/calibration.h: ToCalibrationJob, FromCalibrationJob, ToFitResult).
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/calibration.h"

namespace cosimo {
namespace {

// One problem of sample series `i`, or "" when it has none.
std::string SamplesProblem(const v1::MeasuredSamples& s, int i) {
  const std::string field = absl::StrCat("calibration.samples[", i, "]");
  if (s.times_size() != s.values_size()) {
    return absl::StrCat(field, ": ", s.times_size(), " times but ", s.values_size(), " values");
  }
  if (!(s.factor() > 0.0) || !std::isfinite(s.factor())) {
    return field + ".factor: must be finite and > 0";
  }
  for (int k = 0; k < s.times_size(); ++k) {
    if (!std::isfinite(s.times(k)) || (k > 0 && !(s.times(k) > s.times(k - 1)))) {
      return absl::StrCat(field, ".times[", k, "]: not finite, or not after the one before");
    }
  }
  return "";
}

}  // namespace

v1::CalibrationJob ToCalibrationJob(const LoadedCalibration& loaded) {
  v1::CalibrationJob job;
  *job.mutable_calibration() = loaded.calibration;
  job.mutable_calibration()->clear_scenario();  // the job's scenario is the base
  for (const MeasuredSeries& series : loaded.data) {
    v1::MeasuredSamples* s = job.add_samples();
    s->set_column(series.column);
    s->set_variable(series.variable);
    s->mutable_times()->Add(series.times.begin(), series.times.end());
    s->mutable_values()->Add(series.values.begin(), series.values.end());
    s->set_factor(series.factor);
  }
  return job;
}

absl::StatusOr<LoadedCalibration> FromCalibrationJob(const v1::CalibrationJob& job,
                                                     const v1::Scenario& base) {
  v1::Calibration calibration = job.calibration();
  if (!calibration.has_scenario() && calibration.scenario_file().empty()) {
    calibration.set_scenario_file("(the job's scenario)");  // the base travels as the scenario
  }
  if (absl::Status s = ValidateCalibration(calibration); !s.ok()) {
    return absl::InvalidArgumentError("calibration." + std::string(s.message()));
  }
  const v1::MeasuredData& data = calibration.data();
  if (job.samples_size() != data.columns_size()) {
    return absl::InvalidArgumentError(absl::StrCat("calibration.samples: ", job.samples_size(),
                                                   " series for ", data.columns_size(),
                                                   " data.columns (one each, in order)"));
  }
  LoadedCalibration loaded{calibration, base, {}};
  for (int i = 0; i < job.samples_size(); ++i) {
    const v1::MeasuredSamples& s = job.samples(i);
    if (std::string problem = SamplesProblem(s, i); !problem.empty()) {
      return absl::InvalidArgumentError(problem);
    }
    if (s.variable() != data.columns(i).variable()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "calibration.samples[", i, "].variable: '", s.variable(), "' is not data.columns[", i,
          "].variable '", data.columns(i).variable(), "'"));
    }
    loaded.data.push_back({s.column(),
                           s.variable(),
                           {s.times().begin(), s.times().end()},
                           {s.values().begin(), s.values().end()},
                           s.factor()});
  }
  return loaded;
}

v1::FitResult ToFitResult(const LoadedCalibration& loaded, const CalibrationResult& result) {
  const OptimizerResult& o = result.optimizer;
  const FitStatistics& st = result.statistics;
  v1::FitResult out;
  out.mutable_estimates()->Add(result.estimates.begin(), result.estimates.end());
  out.set_objective(o.objective);
  const auto n = static_cast<Eigen::Index>(result.estimates.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    out.add_standard_errors(st.standard_errors[i]);
    out.add_undetermined(st.undetermined[static_cast<size_t>(i)]);
    for (Eigen::Index j = 0; j < n; ++j) out.add_correlation(st.correlation(i, j));
  }
  out.set_residual_variance(st.residual_variance);
  out.set_stop_reason(o.stop_reason);
  out.set_iterations(static_cast<uint32_t>(o.iterations));
  out.set_evaluations(static_cast<uint64_t>(o.evaluations));
  for (const IterationRecord& record : o.history) {
    v1::FitIteration* it = out.add_history();
    it->set_iteration(static_cast<uint32_t>(record.iteration));
    it->set_evaluations(static_cast<uint64_t>(record.evaluations));
    it->set_objective(record.objective);
    for (double v : FromBox(loaded.calibration, record.x)) it->add_parameters(v);
  }
  out.set_jacobian(result.jacobian);
  return out;
}

}  // namespace cosimo
