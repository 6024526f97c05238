// ModelUnit: a built-in Model integrated by a Solver, as a Unit. The unit owns the state vector
// x and the time; the model is immutable and the solver keeps only scratch buffers and (for
// multistep methods) a history, so a snapshot is a value copy of (x, t, inputs, solver history)
// and a restored unit repeats a step bit for bit.
//
// Outputs at the end of a step use the step's input polynomial at its end, u~(t[N+1]); Evaluate
// sets the inputs at the current time and recomputes the outputs (for output reactive units).
// dy/dt in replies is C x' + D u' from the Jacobians, or a directional finite difference for
// models without analytic Jacobians. A step that fails leaves x and t where they were (the
// solver worked on a copy); the solver history may have moved, so callers restore a snapshot.
// Call order and thread safety: see cosimo/units/unit.h.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cosimo/units/unit.h"
#include "units/src/models/linearizer.h"
#include "units/src/models/model.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {

class ModelUnit final : public Unit {
 public:
  // `solver` must have been built for `model` (CreateSolver); both are owned by the unit.
  ModelUnit(std::string name, std::unique_ptr<Model> model, std::unique_ptr<Solver> solver);

  const UnitDescription& description() const override { return description_; }
  double time() const override { return time_; }
  [[nodiscard]] absl::Status SetRecorded(const std::vector<std::string>& names) override;
  [[nodiscard]] absl::Status Initialize(double start_time, double stop_time) override;
  [[nodiscard]] absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override;
  void Step(const StepRequest& request, StepReply* reply) override;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() override;
  [[nodiscard]] absl::Status Restore(const UnitSnapshot& snapshot) override;
  [[nodiscard]] absl::StatusOr<std::string> Serialize(const UnitSnapshot& snapshot) override;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(
      std::string_view bytes) override;
  [[nodiscard]] absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) override;
  // A connected input cannot also be held by a parameter (a built-in model has no start value
  // for the parameter to give): the error names both.
  [[nodiscard]] absl::Status SetConnectedInputs(const std::vector<bool>& connected) override;

  // Inputs (index in model().inputs(), value) given by the unit's parameters: they take that
  // value whatever is sent for them, unless SetConnectedInputs says a connection feeds them.
  void HoldInputs(std::vector<std::pair<int, double>> held) { held_ = std::move(held); }

  const Model& model() const { return *model_; }
  const Solver& solver() const { return *solver_; }
  const Eigen::VectorXd& state() const { return x_; }

 private:
  enum class Source { kOutput, kInput, kState, kDerivative };
  struct Recorded {
    Source source;
    int index;
  };

  absl::Status CheckInputs(const Eigen::VectorXd& inputs) const;
  // `inputs` with the held inputs' values in place (itself when none is held).
  const Eigen::VectorXd& WithHeld(const Eigen::VectorXd& inputs);
  const InputPolynomials& WithHeld(const InputPolynomials& inputs);
  // Outputs, dy/dt and recorded values at (time_, x_, u_, u_dot_).
  void ComputeReply(Eigen::VectorXd* outputs, Eigen::VectorXd* derivatives,
                    std::vector<double>* recorded);

  std::string name_;
  std::unique_ptr<Model> model_;  // declared before solver_: the solver refers to it
  std::unique_ptr<Solver> solver_;
  UnitDescription description_;
  Linearizer linearizer_;
  bool lti_ = false;
  bool analytic_ = false;
  bool initialized_ = false;
  std::vector<Recorded> recorded_;
  std::vector<std::pair<int, double>> held_;
  Eigen::VectorXd held_values_;  // WithHeld's buffers
  InputPolynomials held_polynomials_;

  double time_ = 0.0;
  Eigen::VectorXd x_;      // states at time_
  Eigen::VectorXd u_;      // inputs at time_
  Eigen::VectorXd u_dot_;  // du/dt at time_ (0 after Evaluate)

  // Scratch.
  Eigen::VectorXd x_work_, xdot_, y_probe_, x_probe_, u_probe_;
  Eigen::MatrixXd a_, b_, c_, d_;
};

}  // namespace cosimo::units
