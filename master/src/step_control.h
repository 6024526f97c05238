// The step-control policy of a master run: which communication step comes next, what a
// rejected attempt does (retry with a smaller H when adaptive, else end the run), and how H
// adapts after an accepted one. Fixed H lands on t[N] = start + N H (no drift) with the last
// step shortened onto stop_time; adaptive H stays within [min_step, max_step] and takes the
// rest of the run when that is (about) one step or less. docs/algorithms.md section 5.
// Time events (UnitDescription::event_times; sample_times of a unit feeding a discrete input:
// a table's jumps and held samples) end a step: the step that would pass one ends on it, the
// fixed grid goes on from there (the next grid point after it).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "master/src/coupled_units.h"
#include "master/src/master_config.h"

namespace cosimo::master {

class StepControl {
 public:
  explicit StepControl(const MasterConfig& config);

  // The end of accepted step n (0-based) from t: the grid's or adaptive H's, or the first time
  // event before it.
  double NextTime(double t, uint64_t n);
  // After a rejected attempt on [t, t + h], its steps discarded: the smaller H to retry with,
  // or the error that ends the run (fixed H, or H already at min_step).
  [[nodiscard]] absl::StatusOr<double> AfterRejection(double t, double h,
                                                      const Attempt& attempt) const;
  // After an accepted attempt on a step of size h: the next H (adaptive).
  void AfterAcceptance(double h, const Attempt& attempt);

  // Adaptive H's next step before clamping: what a checkpoint keeps (issue 18).
  double next_step() const { return h_; }
  void set_next_step(double h) { h_ = h; }

  // A run whose steps are final cannot reject: the error for a step that failed.
  static absl::Status Failed(double t, double h, const Attempt& attempt);

 private:
  const AlgorithmSettings& settings_;
  const int error_order_;
  uint64_t num_fixed_steps_;
  double h_;                    // adaptive: the next H before clamping
  std::vector<double> events_;  // time events in (start, stop), ascending
  bool shortened_ = false;      // the last NextTime ended on an event before the planned end

  // `next`, or the first time event in (t, next] (within 1e-9 of the step).
  double LandOnEvent(double t, double next);
};

}  // namespace cosimo::master
