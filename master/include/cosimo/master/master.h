// The master algorithms: Jacobi, Gauss-Seidel, fixed-point and Newton strong coupling, with
// step rejection and adaptive communication steps, over abstract UnitProxy units.
//
// RunMaster checks the coupling against the loaded units (connections naming variables that do
// not exist, reactivity against the algorithm, algebraic loops), runs the scenario from
// start_time to stop_time, and terminates every unit. It records one row per accepted
// communication point. Thread safety: one call per job; the observer is called on the calling
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/master/unit_proxy.h"
#include "cosimo/v1/checkpoint.pb.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::master {

// How much of the results table a job's stored checkpoint holds: its rows, and the texts of its
// string cells (ResultTable::strings).
struct CheckpointMark {
  uint64_t rows = 0;
  uint64_t strings = 0;
};

struct Progress {
  double time = 0.0;  // s reached
  uint64_t steps_accepted = 0;
  uint64_t steps_rejected = 0;
  uint64_t iterations = 0;  // total internal iterations
};

class MasterObserver {
 public:
  virtual ~MasterObserver() = default;
  // Called once the units are initialised, with their consistent outputs at start_time, before
  // the first step.
  virtual void OnStart(double /*start_time*/) {}
  // Called after every accepted step (cheap; implementations throttle themselves).
  virtual void OnProgress(const Progress& progress) = 0;
  // Polled once per step; true stops the run with a kCancelled status.
  virtual bool Canceled() = 0;

  // Checkpoints (issue 18). Asked after every accepted step whether one is due besides every
  // algorithm.checkpoint_every steps (the job's policy by wall time).
  virtual bool CheckpointDue() { return false; }
  // A checkpoint at the accepted step just taken: every unit's state and the master's, and the
  // results' rows after Checkpointed() (JobCheckpoint.rows_from).
  virtual void OnCheckpoint(const v1::JobCheckpoint& /*checkpoint*/) {}
  // The rows the checkpoints stored so far hold (zero: none; every checkpoint carries every row).
  virtual CheckpointMark Checkpointed() { return {}; }
  // A checkpoint could not be taken (a unit cannot serialise its state, and why): the run goes
  // on without checkpoints. Called once.
  virtual void OnCheckpointFailed(const absl::Status& /*why*/) {}

  // Rows streamed as they are recorded (issue 40). Asked once, before the first row: the bytes
  // of rows (8 a number, a text's length and 8) the master holds before it hands them to OnRows;
  // 0, the default, keeps every row in the MasterResult and in every checkpoint.
  virtual size_t RowChunkBytes() { return 0; }
  // With RowChunkBytes() > 0: rows `first_row` on of the job's table (`rows` holds the columns
  // and these rows only), every row once and in order, when the rows held reach RowChunkBytes(),
  // before every checkpoint (whose rows_streamed then counts them all) and at the end of a run
  // that succeeded (its MasterResult then has no rows). An error stops the run with it.
  [[nodiscard]] virtual absl::Status OnRows(uint64_t /*first_row*/, const ResultTable& /*rows*/) {
    return absl::OkStatus();
  }
  // With RowChunkBytes() > 0: asked after every accepted step; true hands the rows held over to
  // OnRows now, fewer than a chunk (issue 42: a running job's rows so far readable by wall time).
  virtual bool RowsDue() { return false; }
};

struct UnitSummary {
  std::string name;
  UnitLocation location;
  UnitReport report;  // mode, real integrations, estimates
};

// The recorded table ("time", then the recorded "<unit>.<variable>") and the run's statistics.
// Stops a run when `cancel` is set (a job's cancel, a worker's abandon request) or past
// `max_rows` accepted steps, the rows one job may record (0: no limit). A sweep's variant, on the
// orchestrator or a worker.
class RowLimitObserver final : public MasterObserver {
 public:
  RowLimitObserver(const std::atomic<bool>* cancel, uint64_t max_rows)
      : cancel_(cancel), max_rows_(max_rows) {}
  void OnProgress(const Progress& progress) override { steps_ = progress.steps_accepted; }
  bool Canceled() override {
    rows_exceeded_ = max_rows_ > 0 && steps_ + 1 > max_rows_;
    return rows_exceeded_ || (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed));
  }
  // Whether it stopped the run for its rows.
  bool rows_exceeded() const { return rows_exceeded_; }

 private:
  const std::atomic<bool>* const cancel_;
  const uint64_t max_rows_;
  uint64_t steps_ = 0;
  bool rows_exceeded_ = false;
};

struct MasterResult : ResultTable {
  uint64_t steps_accepted = 0;
  uint64_t steps_rejected = 0;
  double iterations_mean = 0.0;  // internal iterations per accepted step
  uint64_t iterations_max = 0;
  std::vector<UnitSummary> units;
  // The most rows the table held at once: every row, or with rows streamed about one chunk (the
  // bound of its memory, which tests check).
  uint64_t rows_held_max = 0;
};

// Errors name the time reached and the units involved. `observer` may be null. With `resume`
// (a checkpoint an earlier run of the same scenario gave its observer), the units are
// initialised, brought to the checkpoint, and the run goes on from there: its result is the one
// the earlier run would have given.
[[nodiscard]] absl::StatusOr<MasterResult> RunMaster(const v1::Scenario& scenario,
                                                     const std::vector<UnitProxy*>& units,
                                                     MasterObserver* observer,
                                                     const v1::JobCheckpoint* resume = nullptr);

}  // namespace cosimo::master
