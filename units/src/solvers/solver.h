// A solver integrates a Model over one communication step with the step's input polynomials
// (Boost.odeint's "stepper" concept). It keeps only scratch buffers and, for multistep methods,
// a history that SaveHistory/RestoreHistory capture so a step can be redone after a rollback.
// Not thread safe; one solver per unit.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/checkpoint/state_bytes.h"
#include "units/src/models/model.h"

namespace cosimo::units {

// What one Integrate call did.
struct SolverOutcome {
  StepStatus status = StepStatus::kOk;
  std::string message;  // why, when not kOk (e.g. "implicit Euler did not converge at t=...")
  int substeps = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;

  // Advances `x` from t0 to t0 + h under inputs u(t0 + s) = inputs(s). On failure `x` is left
  // unspecified (the unit restores it).
  virtual SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0,
                                  double h, Eigen::VectorXd& x) = 0;

  // Multistep history (values, not pointers); empty solvers return nullptr.
  virtual std::shared_ptr<const void> SaveHistory() const { return nullptr; }
  virtual void RestoreHistory(const std::shared_ptr<const void>& history) { (void)history; }
  // The history in a checkpoint (issue 18): written by value, read back into what SaveHistory
  // gave, right after SaveHistory (a checkpoint saves and serialises at once), so a solver may
  // add what a rollback need not restore but a fresh solver lacks (ExactSolver's exponentials,
  // reused for step sizes a few ulps apart). Solvers without history write and read nothing.
  virtual void WriteHistory(const std::shared_ptr<const void>& history, StateWriter* out) const {
    (void)history, (void)out;
  }
  virtual std::shared_ptr<const void> ReadHistory(StateReader* in) const {
    (void)in;
    return nullptr;
  }
  // Forget the history (after an input discontinuity or re-initialisation).
  virtual void Reset() {}
};

// Builds the solver a scenario asks for; `model` decides the default (EXACT for linear
// time-invariant models, RK45 otherwise). Errors name the unit and the solver field.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Solver>> CreateSolver(const v1::Solver& spec,
                                                                   const Model& model,
                                                                   const std::string& unit_name);

}  // namespace cosimo::units
