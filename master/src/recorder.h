// Observers of a master run's accepted communication points, called by the run on its thread
// after the units' outputs are taken (the consistent initial outputs at start_time, then every
// accepted step): the results table (Recorder) and the progress the job's watchers see
// (ProgressReporter). They read the units and never command them.
#pragma once

#include <vector>

#include "absl/status/status.h"

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
// config.plan, appended on construction). With `chunk_bytes` > 0 the rows are streamed: Full()
// once the rows held reach that many bytes, and Flush hands them to the run's observer and drops
// them, so the table holds about a chunk at most; 0 keeps every row.
class Recorder final : public StepObserver {
 public:
  Recorder(const MasterConfig& config, ResultTable* table, size_t chunk_bytes);
  void OnStart(double t, const std::vector<UnitSlot>& units) override { Record(t, units); }
  void OnAccepted(double t, const std::vector<UnitSlot>& units, const Progress&) override {
    Record(t, units);
  }

  bool streams() const { return chunk_bytes_ > 0; }
  bool Full() const { return chunk_bytes_ > 0 && bytes_held_ >= chunk_bytes_; }
  // The held rows to observer.OnRows (none: nothing), then out of the table.
  [[nodiscard]] absl::Status Flush(MasterObserver& observer);
  // A resumed run: the rows before `rows` were streamed by the run that took the checkpoint.
  void StartAt(uint64_t rows) { first_row_ = rows; }
  // After the table's rows were restored from a checkpoint: counts them as held.
  void Recount();
  uint64_t rows_recorded() const { return first_row_ + table_->rows(); }
  uint64_t rows_held_max() const { return rows_held_max_; }

 private:
  void Record(double t, const std::vector<UnitSlot>& units);

  const RecordPlan& plan_;
  ResultTable* table_;
  const size_t chunk_bytes_;
  uint64_t first_row_ = 0;  // the job's row the table's first row is
  size_t bytes_held_ = 0;
  uint64_t rows_held_max_ = 0;
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
