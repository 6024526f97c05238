// Explicit Euler, implicit Euler (direct iteration and Newton) and classical RK4, all on a fixed
// substep with the last substep shortened to land exactly on t0 + h.
#include <Eigen/LU>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "units/src/models/linearizer.h"
#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {

SolverOutcome TooManySubsteps(const std::string& solver, double h, double step) {
  SolverOutcome outcome;
  outcome.status = StepStatus::kFailed;
  outcome.message = solver + ": a step of h=" + FormatNumber(h) + " needs " +
                    FormatNumber(h / step) + " substeps of " + FormatNumber(step) + ", more than " +
                    std::to_string(std::numeric_limits<int>::max()) +
                    "; use a larger solver.step or a smaller algorithm.step_size";
  return outcome;
}

SolverOutcome Abandoned(const std::string& solver, double t) {
  SolverOutcome outcome;
  outcome.status = StepStatus::kFailed;
  outcome.message = solver + ": abandoned at t=" + FormatNumber(t) +
                    ": the orchestrator gave this worker up (command timeout or canceled job)";
  return outcome;
}

namespace {

SolverOutcome NotFinite(const std::string& solver, double t, double h) {
  SolverOutcome outcome;
  outcome.status = StepStatus::kDiverged;
  outcome.message = solver + ": the state is no longer finite at t=" + FormatNumber(t) +
                    " (substep h=" + FormatNumber(h) + ")";
  return outcome;
}

class ExplicitEulerSolver final : public Solver {
 public:
  explicit ExplicitEulerSolver(double step) : step_(step) {}
  std::string name() const override { return "EXPLICIT_EULER"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    EnsureSize(u_, model.num_inputs());
    EnsureSize(k_, model.num_states());
    const std::optional<int> count = CountSubsteps(h, step_);
    if (!count) return TooManySubsteps(name(), h, step_);
    const int n = *count;
    for (int i = 0; i < n; ++i) {
      const double s = SubstepStart(i, step_);
      if (CheckAbandon(i)) return Abandoned(name(), t0 + s);
      const double hs = SubstepEnd(i, n, h, step_) - s;
      inputs.Value(s, u_);
      model.Derivatives(t0 + s, x, u_, k_);
      x += hs * k_;
      if (!AllFinite(x)) return NotFinite(name(), t0 + s, hs);
    }
    // Declared here, not above the early returns, so that it is built in the return slot.
    SolverOutcome outcome;
    outcome.substeps = n;
    return outcome;
  }

 private:
  double step_;
  Eigen::VectorXd u_, k_;
};

class Rk4Solver final : public Solver {
 public:
  explicit Rk4Solver(double step) : step_(step) {}
  std::string name() const override { return "RK4"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    const Eigen::Index nx = model.num_states();
    EnsureSize(u_, model.num_inputs());
    EnsureSize(k1_, nx);
    EnsureSize(k2_, nx);
    EnsureSize(k3_, nx);
    EnsureSize(k4_, nx);
    EnsureSize(stage_, nx);
    const std::optional<int> count = CountSubsteps(h, step_);
    if (!count) return TooManySubsteps(name(), h, step_);
    const int n = *count;
    for (int i = 0; i < n; ++i) {
      const double s = SubstepStart(i, step_);
      if (CheckAbandon(i)) return Abandoned(name(), t0 + s);
      const double hs = SubstepEnd(i, n, h, step_) - s;
      inputs.Value(s, u_);
      model.Derivatives(t0 + s, x, u_, k1_);
      inputs.Value(s + 0.5 * hs, u_);
      stage_ = x + (0.5 * hs) * k1_;
      model.Derivatives(t0 + s + 0.5 * hs, stage_, u_, k2_);
      stage_ = x + (0.5 * hs) * k2_;
      model.Derivatives(t0 + s + 0.5 * hs, stage_, u_, k3_);
      inputs.Value(s + hs, u_);
      stage_ = x + hs * k3_;
      model.Derivatives(t0 + s + hs, stage_, u_, k4_);
      x += (hs / 6.0) * (k1_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
      if (!AllFinite(x)) return NotFinite(name(), t0 + s, hs);
    }
    // Declared here, not above the early returns, so that it is built in the return slot.
    SolverOutcome outcome;
    outcome.substeps = n;
    return outcome;
  }

 private:
  double step_;
  Eigen::VectorXd u_, k1_, k2_, k3_, k4_, stage_;
};

class ImplicitEulerSolver final : public Solver {
 public:
  ImplicitEulerSolver(double step, v1::Solver::Iteration iteration, int max_iterations,
                      double tolerance, std::string unit_name)
      : step_(step),
        newton_(iteration == v1::Solver::NEWTON),
        max_iterations_(max_iterations),
        tolerance_(tolerance),
        unit_name_(std::move(unit_name)) {}

  std::string name() const override {
    return newton_ ? "IMPLICIT_EULER (Newton)" : "IMPLICIT_EULER (direct iteration)";
  }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    const Eigen::Index nx = model.num_states();
    EnsureSize(u_, model.num_inputs());
    EnsureSize(f_, nx);
    EnsureSize(next_, nx);
    EnsureSize(start_, nx);
    if (newton_ && linearizer_ == nullptr) {
      linearizer_ = std::make_unique<Linearizer>(model);
      jacobian_ = Eigen::MatrixXd::Zero(nx, nx);
      lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(nx);
    }
    SolverOutcome outcome;
    const std::optional<int> count = CountSubsteps(h, step_);
    if (!count) return TooManySubsteps(name(), h, step_);
    const int n = *count;
    for (int i = 0; i < n; ++i) {
      const double s = SubstepStart(i, step_);
      if (CheckAbandon(i)) return Abandoned(name(), t0 + s);
      const double hs = SubstepEnd(i, n, h, step_) - s;
      inputs.Value(s + hs, u_);
      start_ = x;
      const bool ok = newton_ ? SolveNewton(model, t0 + s + hs, hs, x, &outcome)
                              : SolveDirect(model, t0 + s + hs, hs, x, &outcome);
      if (!ok) {
        outcome.status = StepStatus::kDiverged;
        outcome.message = "unit '" + unit_name_ + "': " + name() + " " + outcome.message +
                          " on the substep from t=" + FormatNumber(t0 + s) +
                          " with h=" + FormatNumber(hs);
        if (!newton_) outcome.message += " (direct iteration converges only when h |dF/dx| < 1)";
        return outcome;
      }
    }
    outcome.substeps = n;
    return outcome;
  }

 private:
  // Solves x = start_ + h F(x, u_, t) in place; x enters as the initial guess (start_).
  bool SolveDirect(const Model& model, double t, double h, Eigen::VectorXd& x,
                   SolverOutcome* outcome) {
    for (int k = 0; k < max_iterations_; ++k) {
      model.Derivatives(t, x, u_, f_);
      next_ = start_ + h * f_;
      const double change = (next_ - x).lpNorm<Eigen::Infinity>();
      x = next_;
      if (!AllFinite(x)) {
        outcome->message =
            "diverged (the iterate is not finite after " + std::to_string(k + 1) + " iterations)";
        return false;
      }
      if (change <= tolerance_ * (1.0 + x.lpNorm<Eigen::Infinity>())) return true;
    }
    outcome->message = "did not converge in " + std::to_string(max_iterations_) + " iterations";
    return false;
  }

  bool SolveNewton(const Model& model, double t, double h, Eigen::VectorXd& x,
                   SolverOutcome* outcome) {
    for (int k = 0; k < max_iterations_; ++k) {
      model.Derivatives(t, x, u_, f_);
      // Residual r = x - start - h F(x); Jacobian I - h dF/dx.
      next_ = x - start_ - h * f_;
      linearizer_->StateJacobian(t, x, u_, &jacobian_);
      jacobian_ *= -h;
      jacobian_.diagonal().array() += 1.0;
      lu_.compute(jacobian_);
      f_ = lu_.solve(next_);  // Newton correction
      x -= f_;
      if (!AllFinite(x)) {
        outcome->message = "Newton diverged (the iterate is not finite after " +
                           std::to_string(k + 1) + " iterations)";
        return false;
      }
      if (f_.lpNorm<Eigen::Infinity>() <= tolerance_ * (1.0 + x.lpNorm<Eigen::Infinity>())) {
        return true;
      }
    }
    outcome->message =
        "Newton did not converge in " + std::to_string(max_iterations_) + " iterations";
    return false;
  }

  double step_;
  bool newton_;
  int max_iterations_;
  double tolerance_;
  std::string unit_name_;
  Eigen::VectorXd u_, f_, next_, start_;
  std::unique_ptr<Linearizer> linearizer_;
  Eigen::MatrixXd jacobian_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

}  // namespace

std::unique_ptr<Solver> NewExplicitEulerSolver(double step) {
  return std::make_unique<ExplicitEulerSolver>(step);
}

std::unique_ptr<Solver> NewRk4Solver(double step) { return std::make_unique<Rk4Solver>(step); }

std::unique_ptr<Solver> NewImplicitEulerSolver(double step, v1::Solver::Iteration iteration,
                                               int max_iterations, double tolerance,
                                               std::string unit_name) {
  return std::make_unique<ImplicitEulerSolver>(step, iteration, max_iterations, tolerance,
                                               std::move(unit_name));
}

}  // namespace cosimo::units
