// Training a hybrid unit's networks on measured data (`cosimo train`, docs/hybrid.md).
//
// The loss is the mean squared error between the unit's simulated variables and the measured
// ones at the data's sample times: the columns "<unit>.<variable>" of a numeric CSV (the layout
// of a results CSV) for the variables the scenario records of the unit (all its outputs in the
// data when it records none). Inputs the data holds ("<unit>.<input>") drive the unit, linear
// between samples; the others are 0. The gradient comes from forward sensitivities,
// S = dx/dp, integrated with the state by the unit's own solver: dS/dt = dF/dx S + dF/dp with
// dF/dx and dF/dp by the chain rule through the networks and the wrapped model's Jacobian (its
// directional derivatives for an FMU that provides them, finite differences otherwise). Adam
// updates the parameters once per epoch (one simulation of the whole data). Everything runs on
// the calling thread, so a run is deterministic for a given scenario (seed) and data.
// Not thread safe; call order: Create, then Loss / Train / weights in any order.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo {
struct NumericCsv;  // cosimo/common/csv.h
}  // namespace cosimo

namespace cosimo::units {

class HybridModel;  // units/src/hybrid/hybrid_model.h
class HybridUnit;   // units/src/hybrid/hybrid_unit.h
class Solver;       // units/src/solvers/solver.h

// The weights file (JSON of cosimo.v1.HybridWeights). Errors name the file.
[[nodiscard]] absl::StatusOr<v1::HybridWeights> ReadWeightsFile(const std::string& path);
// The weights file's text: what WriteWeightsFile writes, and what a training job returns.
std::string WeightsJson(const v1::HybridWeights& weights);
[[nodiscard]] absl::Status WriteWeightsFile(const std::string& path,
                                            const v1::HybridWeights& weights);

struct TrainingOptions {
  int epochs = 100;
  double learning_rate = 1e-3;  // Adam's step size
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
};

struct EpochProgress {
  int epoch = 0;         // 1-based
  int epochs = 0;        // of the run
  double loss = 0.0;     // at the parameters the epoch started from
  double seconds = 0.0;  // since the start of Train
};

class Trainer {
 public:
  // `unit` names a hybrid unit of `scenario`; `data_text` is the CSV, `data_source` its name
  // in errors. Errors (InvalidArgument) name the unit, the field or the column at fault.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Trainer>> Create(
      const v1::Scenario& scenario, const std::string& unit, const std::string& data_text,
      const std::string& data_source);
  ~Trainer();

  // "<unit>.<variable>" of every compared column, in the loss's order.
  const std::vector<std::string>& compared() const { return compared_names_; }
  int samples() const { return static_cast<int>(times_.size()); }
  int num_parameters() const;
  HybridModel& model() { return *model_; }

  // The loss at the current parameters; with `gradient`, its gradient (num_parameters()).
  [[nodiscard]] absl::StatusOr<double> Loss(Eigen::VectorXd* gradient);
  // The unit's simulated trajectory of the compared variables at the sample times
  // (samples x compared).
  [[nodiscard]] absl::StatusOr<Eigen::MatrixXd> Simulate();

  // Adam for options.epochs epochs; `progress` after each (false stops early). Returns the loss
  // at the final parameters. A loss that is not finite is an error naming the epoch.
  [[nodiscard]] absl::StatusOr<double> Train(
      const TrainingOptions& options, const std::function<bool(const EpochProgress&)>& progress);

  v1::HybridWeights weights() const;

 private:
  class SensitivityModel;
  Trainer() = default;
  // Reads the measured data of unit `index` of `scenario` (Create).
  absl::Status ReadData(const v1::Scenario& scenario, int index, const std::string& data_text,
                        const std::string& data_source);
  absl::Status TakeSamples(const v1::Scenario& scenario, const NumericCsv& csv,
                           const std::string& data_source, const std::vector<int>& data_columns,
                           const std::vector<int>& input_columns);
  // Runs the simulation; with `gradient`, the sensitivities too. Fills `trajectory` when not null.
  absl::StatusOr<double> Run(Eigen::VectorXd* gradient, Eigen::MatrixXd* trajectory);

  std::string name_;
  v1::Unit spec_;
  double start_time_ = 0.0, stop_time_ = 0.0;
  std::unique_ptr<HybridUnit> unit_;
  HybridModel* model_ = nullptr;
  std::unique_ptr<SensitivityModel> sensitivity_model_;
  std::unique_ptr<Solver> solver_, sensitivity_solver_;

  std::vector<double> times_;  // samples in [start_time, stop_time]
  Eigen::MatrixXd measured_;   // samples x compared
  Eigen::MatrixXd inputs_;     // samples x unit inputs (0 where the data has none)
  std::vector<std::string> compared_names_;
  std::vector<int> compared_index_;  // >= 0: output index; < 0: state -1 - index
};

}  // namespace cosimo::units
