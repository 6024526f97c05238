#include "master/src/step_control.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace cosimo::master {

StepControl::StepControl(const MasterConfig& config)
    : settings_(config.algorithm),
      error_order_(config.error_order),
      num_fixed_steps_(static_cast<uint64_t>(std::max(
          1.0,
          std::ceil((settings_.stop_time - settings_.start_time) / settings_.step_size - 1e-9)))),
      h_(settings_.step_size) {}

double StepControl::NextTime(double t, uint64_t n) {
  const double stop = settings_.stop_time;
  if (!settings_.adaptive) {
    return n + 1 >= num_fixed_steps_
               ? stop
               : settings_.start_time + static_cast<double>(n + 1) * settings_.step_size;
  }
  double h = std::clamp(h_, settings_.min_step, settings_.max_step);
  // Land on stop_time: take the rest when it is (about) one step or less.
  if (t + h * (1.0 + 1e-9) >= stop || stop - (t + h) < 0.5 * settings_.min_step) h = stop - t;
  return t + h;
}

absl::Status StepControl::Failed(double t, double h, const Attempt& attempt) {
  return absl::AbortedError(
      absl::StrCat("at t=", t, ": step [", t, ", ", t + h, "] failed: ", attempt.reason));
}

absl::StatusOr<double> StepControl::AfterRejection(double t, double h,
                                                   const Attempt& attempt) const {
  if (!settings_.adaptive) {
    return absl::AbortedError(absl::StrCat("at t=", t, ": step [", t, ", ", t + h,
                                           "] rejected with fixed H=", h, ": ", attempt.reason,
                                           "; set algorithm.adaptive to let the step shrink"));
  }
  if (h <= settings_.min_step * (1.0 + 1e-9)) {
    return absl::AbortedError(absl::StrCat("at t=", t, ": step [", t, ", ", t + h,
                                           "] rejected at min_step=", settings_.min_step, ": ",
                                           attempt.reason));
  }
  double factor = 0.5;
  if (attempt.error > 1.0) {
    factor = std::clamp(0.9 * std::pow(attempt.error, -1.0 / (error_order_ + 1)), 0.2, 0.9);
  }
  return std::max(settings_.min_step, h * factor);
}

void StepControl::AfterAcceptance(double h, const Attempt& attempt) {
  if (!settings_.adaptive) return;
  double factor = 1.0;
  if (attempt.error >= 0.0) {
    factor = attempt.error > 0.0
                 ? std::clamp(0.9 * std::pow(attempt.error, -1.0 / (error_order_ + 1)), 0.5, 2.0)
                 : 2.0;
  } else {
    factor = attempt.converged_easily ? 1.5 : 1.0;
  }
  if (settings_.iterative && attempt.iterations > settings_.max_iterations / 2) {
    factor = std::min(factor, 0.8);
  }
  h_ = h * factor;
}

}  // namespace cosimo::master
