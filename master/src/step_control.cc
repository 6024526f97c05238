#include "master/src/step_control.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace cosimo::master {
namespace {

// The time events of the run, ascending, inside (start, stop): every unit's event_times, and
// the sample_times of the units one of whose outputs feeds a discrete input (held between
// samples, it changes at each).
std::vector<double> TimeEvents(const MasterConfig& config) {
  std::vector<double> events;
  const std::vector<UnitDescription>& units = config.descriptions;
  std::vector<bool> held(units.size(), false);
  for (size_t c = 0; c < units.size() && c < config.coupling.inputs.size(); ++c) {
    for (size_t i = 0; i < units[c].inputs.size() && i < config.coupling.inputs[c].size(); ++i) {
      const Coupling::Source& source = config.coupling.inputs[c][i];
      if (units[c].inputs[i].discrete && source.unit >= 0)
        held[static_cast<size_t>(source.unit)] = true;
    }
  }
  for (size_t u = 0; u < units.size(); ++u) {
    events.insert(events.end(), units[u].event_times.begin(), units[u].event_times.end());
    if (held[u]) {
      events.insert(events.end(), units[u].sample_times.begin(), units[u].sample_times.end());
    }
  }
  const double start = config.algorithm.start_time, stop = config.algorithm.stop_time;
  std::erase_if(events, [&](double e) { return !(e > start && e < stop); });
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  return events;
}

}  // namespace

StepControl::StepControl(const MasterConfig& config)
    : settings_(config.algorithm),
      error_order_(config.error_order),
      num_fixed_steps_(static_cast<uint64_t>(std::max(
          1.0,
          std::ceil((settings_.stop_time - settings_.start_time) / settings_.step_size - 1e-9)))),
      h_(settings_.step_size),
      events_(TimeEvents(config)) {}

double StepControl::NextTime(double t, uint64_t n) {
  const double stop = settings_.stop_time;
  shortened_ = false;
  if (!settings_.adaptive) {
    if (events_.empty()) {
      return n + 1 >= num_fixed_steps_
                 ? stop
                 : settings_.start_time + static_cast<double>(n + 1) * settings_.step_size;
    }
    // With time events the step count no longer tells the grid point: the next one after t
    // (t itself counts as reached within 1e-9 H).
    const double k = std::floor((t - settings_.start_time) / settings_.step_size + 1e-9) + 1.0;
    const double next = k >= static_cast<double>(num_fixed_steps_)
                            ? stop
                            : settings_.start_time + k * settings_.step_size;
    return LandOnEvent(t, next);
  }
  double h = std::clamp(h_, settings_.min_step, settings_.max_step);
  // Land on stop_time: take the rest when it is (about) one step or less.
  if (t + h * (1.0 + 1e-9) >= stop || stop - (t + h) < 0.5 * settings_.min_step) h = stop - t;
  return LandOnEvent(t, t + h);
}

double StepControl::LandOnEvent(double t, double next) {
  const double tol = 1e-9 * (next - t);
  const auto it = std::upper_bound(events_.begin(), events_.end(), t + tol);
  // An event within tol of the step's end replaces it (no sliver of a step after it), unless
  // that end is stop_time.
  if (it == events_.end() || *it > next + tol ||
      (next == settings_.stop_time && *it > next - tol)) {
    return next;
  }
  shortened_ = *it < next;
  return *it;
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
  // A step cut short by a time event says nothing of the step the error allows beyond it.
  h_ = shortened_ ? h_ * std::min(factor, 1.0) : h * factor;
}

}  // namespace cosimo::master
