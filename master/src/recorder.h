// Observers of a master run's accepted communication points, called by the run on its thread
// after the units' outputs are taken (the consistent initial outputs at start_time, then every
// accepted step): the results table (Recorder) and the progress the job's watchers see
// (ProgressReporter). They read the units and never command them.
#pragma once

#include <vector>

#include "cosimo/master/master.h"
#include "master/src/master_config.h"
#include "master/src/unit_slot.h"

namespace cosimo::master {

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // The initial outputs at start_time, before the first step.
  virtual void OnStart(double /*t*/, const std::vector<UnitSlot>& /*units*/) {}
  // An accepted step ending at t: `units` hold its outputs; `progress` counts it.
  virtual void OnAccepted(double t, const std::vector<UnitSlot>& units,
                          const Progress& progress) = 0;
};

// One row per communication point into `table` (columns "time" then the recorded variables of
// config.plan, appended on construction).
class Recorder final : public StepObserver {
 public:
  Recorder(const MasterConfig& config, ResultTable* table);
  void OnStart(double t, const std::vector<UnitSlot>& units) override { Record(t, units); }
  void OnAccepted(double t, const std::vector<UnitSlot>& units, const Progress&) override {
    Record(t, units);
  }

 private:
  void Record(double t, const std::vector<UnitSlot>& units);

  const RecordPlan& plan_;
  ResultTable* table_;
};

// Forwards the start and the progress of every accepted step to the run's MasterObserver (may be
// null).
class ProgressReporter final : public StepObserver {
 public:
  explicit ProgressReporter(MasterObserver* observer) : observer_(observer) {}
  void OnStart(double t, const std::vector<UnitSlot>&) override {
    if (observer_ != nullptr) observer_->OnStart(t);
  }
  void OnAccepted(double, const std::vector<UnitSlot>&, const Progress& progress) override {
    if (observer_ != nullptr) observer_->OnProgress(progress);
  }

 private:
  MasterObserver* observer_;
};

}  // namespace cosimo::master
