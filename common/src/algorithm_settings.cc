#include "cosimo/common/algorithm_settings.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cosimo {
namespace {

std::string Num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// A number where 0 (absent) means the default: finite and >= 0.
absl::Status CheckOptional(double v, const char* field, const std::string& meaning) {
  if (std::isfinite(v) && v >= 0.0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, " must be ", meaning, " (got ", Num(v), ")"));
}

// The master counts steps (uint64) and times them start + n H or t + H: a run of more steps than
// a double counts exactly, or a step below the resolution of time near the run, would be cut
// short or never advance (stop_time 1e308 with H = 0.1 ran one step of 1e308).
absl::Status CheckStepCount(double start, double stop, double h, const char* field) {
  constexpr double kMaxSteps = 9007199254740992.0;  // 2^53
  const double steps = (stop - start) / h;
  if (!(steps <= kMaxSteps)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " (", Num(h), ") makes ", Num(steps),
                     " steps from start_time to stop_time, more than 2^53 (the most a double "
                     "counts exactly)"));
  }
  const double scale = std::max(std::abs(start), std::abs(stop));
  const double resolution = std::nextafter(scale, HUGE_VAL) - scale;
  if (h < 4.0 * resolution) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " (", Num(h), ") is below the resolution of time near t=", Num(scale),
                     " (", Num(resolution), " s): its steps would not advance time"));
  }
  return absl::OkStatus();
}

// algorithm.adaptive: the step bounds and the error tolerance, with their defaults.
absl::Status ResolveAdaptive(const v1::Adaptive& ad, AlgorithmSettings* s) {
  const std::string default_min = Num(kDefaultMinStepFraction * s->step_size);
  if (absl::Status st =
          CheckOptional(ad.min_step(), "algorithm.adaptive.min_step",
                        absl::StrCat("> 0, or 0 for the default ", Num(kDefaultMinStepFraction),
                                     " x step_size = ", default_min, " s"));
      !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckOptional(ad.max_step(), "algorithm.adaptive.max_step",
                                      "> 0, or 0 for the default stop_time - start_time");
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          CheckOptional(ad.tolerance(), "algorithm.adaptive.tolerance",
                        absl::StrCat("> 0, or 0 for the default (", Num(kDefaultErrorTolerance),
                                     " for non-iterative kinds, none for iterative ones)"));
      !st.ok()) {
    return st;
  }
  s->min_step = ad.min_step() > 0.0 ? ad.min_step() : kDefaultMinStepFraction * s->step_size;
  // The default is the whole run, or H if that is longer (the first step lands on stop_time).
  s->max_step =
      ad.max_step() > 0.0 ? ad.max_step() : std::max(s->stop_time - s->start_time, s->step_size);
  if (s->min_step > s->max_step) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.adaptive.max_step (", Num(s->max_step),
                     ") must be >= algorithm.adaptive.min_step (", Num(s->min_step), ")"));
  }
  if (s->step_size < s->min_step || s->step_size > s->max_step) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm.step_size (", Num(s->step_size), ") must lie within [adaptive.min_step, ",
        "adaptive.max_step] = [", Num(s->min_step), ", ", Num(s->max_step), "]"));
  }
  if (absl::Status st =
          CheckStepCount(s->start_time, s->stop_time, s->min_step, "algorithm.adaptive.min_step");
      !st.ok()) {
    return st;
  }
  s->error_tolerance =
      ad.tolerance() > 0.0 ? ad.tolerance() : (s->iterative ? 0.0 : kDefaultErrorTolerance);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AlgorithmSettings> ResolveAlgorithm(const v1::Scenario& scenario) {
  AlgorithmSettings s;
  s.start_time = scenario.start_time();
  s.stop_time = scenario.stop_time();
  if (!std::isfinite(s.start_time) || !std::isfinite(s.stop_time) ||
      !(s.stop_time > s.start_time)) {
    return absl::InvalidArgumentError(absl::StrCat("stop_time (", Num(s.stop_time),
                                                   ") must be greater than start_time (",
                                                   Num(s.start_time), ")"));
  }
  if (!scenario.has_algorithm()) {
    return absl::InvalidArgumentError("algorithm is required (at least algorithm.step_size)");
  }
  const v1::Algorithm& a = scenario.algorithm();
  if (!v1::Algorithm::Kind_IsValid(a.kind())) {
    return absl::InvalidArgumentError(absl::StrCat("algorithm.kind ", a.kind(), " is unknown"));
  }
  s.kind = a.kind();
  s.iterative = s.kind == v1::Algorithm::FIXED_POINT || s.kind == v1::Algorithm::NEWTON;
  s.step_size = a.step_size();
  if (!(std::isfinite(s.step_size) && s.step_size > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.step_size must be > 0 (got ", Num(s.step_size), ")"));
  }
  if (absl::Status st =
          CheckStepCount(s.start_time, s.stop_time, s.step_size, "algorithm.step_size");
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          CheckOptional(a.tolerance(), "algorithm.tolerance",
                        absl::StrCat("> 0, or 0 for the default ", Num(kDefaultCouplingTolerance)));
      !st.ok()) {
    return st;
  }
  s.tolerance = a.tolerance() > 0.0 ? a.tolerance() : kDefaultCouplingTolerance;
  if (a.max_iterations() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.max_iterations must be >= 1, or 0 for the default ",
                     kDefaultMaxIterations, " (got ", a.max_iterations(), ")"));
  }
  s.max_iterations = a.max_iterations() > 0 ? a.max_iterations() : kDefaultMaxIterations;
  if (a.checkpoint_every() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm.checkpoint_every must be >= 1 accepted steps, or 0 for checkpoints by wall "
        "time only (got ",
        a.checkpoint_every(), ")"));
  }
  s.checkpoint_every = a.checkpoint_every();
  s.allow_non_finite = a.allow_non_finite();
  // Aitken starts from the relaxation written and adapts it; the factor written is a
  // relaxation either way, (0, 1] (docs/scenario.md).
  if (!(std::isfinite(a.relaxation()) && a.relaxation() >= 0.0 && a.relaxation() <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.relaxation must be in (0, 1], or 0 for the default 1 (got ",
                     Num(a.relaxation()), ")"));
  }
  s.relaxation = a.relaxation() > 0.0 ? a.relaxation() : kDefaultRelaxation;
  s.aitken = a.aitken();
  s.linear_coupling = a.linear_coupling();
  if (a.extrapolation_degree() < 0 || a.extrapolation_degree() > kMaxExtrapolationDegree) {
    return absl::InvalidArgumentError(absl::StrCat("algorithm.extrapolation_degree must be in 0..",
                                                   kMaxExtrapolationDegree, " (got ",
                                                   a.extrapolation_degree(), ")"));
  }
  s.extrapolation_degree = a.extrapolation_degree();
  if (!v1::Algorithm::NewtonJacobian_IsValid(a.newton_jacobian())) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm.newton_jacobian ", a.newton_jacobian(), " is unknown"));
  }
  s.newton_jacobian = a.newton_jacobian();

  s.adaptive = a.has_adaptive();
  if (!s.adaptive) return s;
  if (absl::Status st = ResolveAdaptive(a.adaptive(), &s); !st.ok()) return st;
  return s;
}

size_t ExpectedRows(const AlgorithmSettings& a) {
  const double rows = a.adaptive || a.step_size <= 0.0
                          ? 64.0
                          : std::ceil((a.stop_time - a.start_time) / a.step_size) + 1.0;
  return static_cast<size_t>(std::clamp(rows, 1.0, 1e7));
}

}  // namespace cosimo
